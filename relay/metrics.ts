/** Prometheus metrics of the relay, in the text exposition format. */

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Counters, gauges and one latency histogram; `render()` writes the exposition text. */
export class Metrics {
  readonly #counters = new Map<string, number>();
  readonly #gauges = new Map<string, () => number>();
  readonly #histogram = new Map<string, { buckets: number[]; sum: number; count: number }>();

  /** Adds `by` to a counter (name with labels, e.g. `edgeloop_reconciles_total{result="ok"}`). */
  inc(series: string, by = 1): void {
    this.#counters.set(series, (this.#counters.get(series) ?? 0) + by);
  }

  /** A gauge read at scrape time. */
  gauge(series: string, read: () => number): void {
    this.#gauges.set(series, read);
  }

  /** Records one reconcile latency in seconds, by controller. */
  observe(controller: string, seconds: number): void {
    let h = this.#histogram.get(controller);
    if (!h) this.#histogram.set(controller, (h = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    BUCKETS.forEach((le, i) => {
      if (seconds <= le) h.buckets[i] = (h.buckets[i] ?? 0) + 1;
    });
    h.sum += seconds;
    h.count += 1;
  }

  /** The exposition text. */
  render(): string {
    const lines: string[] = [];
    const families = new Set<string>();
    const head = (name: string, type: string, help: string): void => {
      if (families.has(name)) return;
      families.add(name);
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    };
    for (const [series, value] of [...this.#counters].sort()) {
      head(series.split("{")[0] ?? series, "counter", "edgeloop relay counter");
      lines.push(`${series} ${value}`);
    }
    for (const [series, read] of this.#gauges) {
      head(series.split("{")[0] ?? series, "gauge", "edgeloop relay gauge");
      lines.push(`${series} ${read()}`);
    }
    head("edgeloop_reconcile_duration_seconds", "histogram", "Time from sending a snapshot to the plan being applied");
    for (const [controller, h] of this.#histogram) {
      BUCKETS.forEach((le, i) => lines.push(`edgeloop_reconcile_duration_seconds_bucket{controller="${controller}",le="${le}"} ${h.buckets[i] ?? 0}`));
      lines.push(`edgeloop_reconcile_duration_seconds_bucket{controller="${controller}",le="+Inf"} ${h.count}`);
      lines.push(`edgeloop_reconcile_duration_seconds_sum{controller="${controller}"} ${h.sum}`);
      lines.push(`edgeloop_reconcile_duration_seconds_count{controller="${controller}"} ${h.count}`);
    }
    return `${lines.join("\n")}\n`;
  }
}
