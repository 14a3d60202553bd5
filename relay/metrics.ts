/** Prometheus metrics of the relay, in the text exposition format. */
import { RELAY_METRICS, type CounterName, type FamilyName, type GaugeName, type Series } from "./metric-families.ts";

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HISTOGRAM: FamilyName = "edgeloop_reconcile_duration_seconds";

/** Counters, gauges and one latency histogram, each under a declared family; `render()` writes the exposition text. */
export class Metrics {
  readonly #counters = new Map<string, number>();
  readonly #gauges = new Map<string, () => number>();
  readonly #histogram = new Map<string, { buckets: number[]; sum: number; count: number }>();

  /** Adds `by` to a counter (name with labels, e.g. `edgeloop_reconciles_total{result="ok"}`). */
  inc(series: Series<CounterName>, by = 1): void {
    this.#counters.set(series, (this.#counters.get(series) ?? 0) + by);
  }

  /** A gauge read at scrape time. */
  gauge(series: Series<GaugeName>, read: () => number): void {
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

  /** The exposition text: every declared family with its HELP and TYPE, then its series. */
  render(): string {
    const lines: string[] = [];
    for (const [name, family] of Object.entries(RELAY_METRICS) as [FamilyName, (typeof RELAY_METRICS)[FamilyName]][]) {
      lines.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`);
      if (name === HISTOGRAM) lines.push(...this.#histogramLines());
      else if (family.type === "counter") lines.push(...seriesOf(name, this.#counters).map(([series, value]) => `${series} ${value}`));
      else lines.push(...seriesOf(name, this.#gauges).map(([series, read]) => `${series} ${read()}`));
    }
    return `${lines.join("\n")}\n`;
  }

  #histogramLines(): string[] {
    const lines: string[] = [];
    for (const [controller, h] of this.#histogram) {
      BUCKETS.forEach((le, i) => lines.push(`${HISTOGRAM}_bucket{controller="${controller}",le="${le}"} ${h.buckets[i] ?? 0}`));
      lines.push(`${HISTOGRAM}_bucket{controller="${controller}",le="+Inf"} ${h.count}`);
      lines.push(`${HISTOGRAM}_sum{controller="${controller}"} ${h.sum}`);
      lines.push(`${HISTOGRAM}_count{controller="${controller}"} ${h.count}`);
    }
    return lines;
  }
}

/** The series of one family, sorted, so that a family's samples stay together. */
function seriesOf<V>(family: string, all: ReadonlyMap<string, V>): [string, V][] {
  return [...all].filter(([series]) => series === family || series.startsWith(`${family}{`)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** HELP text escaping of the exposition format: backslash and line feed. */
function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}
