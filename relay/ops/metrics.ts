/**
 * Prometheus metrics of the relay, on prom-client, in a registry of its own per relay (two
 * relays share a process in the tests; prom-client's global registry is never used).
 * edgeloop's families keep their names and HELP; beside them, the families Kubernetes
 * operators chart: client-go's workqueue, controller-runtime's reconcile, client-go's
 * leader election and REST client metrics (docs/adr/0014-metrics.md); and the process's
 * standard metrics (`./process-metrics.ts`), rendered with the relay's.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { processRegistry, type ProcessLabels } from "./process-metrics.ts";
import { KUBERNETES_METRICS, RELAY_METRICS, type CounterName, type FamilyName, type GaugeName, type LabelsOf, type MetricFamily, type UpstreamName } from "./metric-families.ts";
import type { RequestMetrics } from "../kube/client.ts";
import { RECONCILE_RESULTS, WorkQueueMetrics, type QueueMetricsSink, type ReconcileResult } from "../queue/queue-metrics.ts";

type Labels = Record<string, string>;
type AnyFamily = FamilyName | UpstreamName;
type Instrument = Counter | Gauge | Histogram;

/** Told of leadership changes, as client-go's leaderelection metrics adapter is (`leader_election_master_status`). */
export interface LeaderMetrics {
  leaderOn(name: string): void;
  leaderOff(name: string): void;
}

/** The relay's metrics: edgeloop's counters, gauges and latency histogram, and the upstream families. */
export class Metrics {
  /** This relay's own families (`/metrics` renders them with the process's). */
  readonly registry = new Registry();
  /** The process's standard metrics. */
  readonly #process: Registry;
  /** The work queue's observer: client-go's workqueue and controller-runtime's reconcile metrics, by controller. */
  readonly workqueue: WorkQueueMetrics;
  /** Counts the Kubernetes API requests. */
  readonly restClient: RequestMetrics;
  /** Sets the leader election gauge. */
  readonly leaderElection: LeaderMetrics;
  readonly #instruments = new Map<AnyFamily, Instrument>();
  /** Gauges read at scrape time, by family. */
  readonly #readers = new Map<FamilyName, { labels: Labels; read: () => number }[]>();

  /**
   * `now`: the clock of the work queue metrics, in ms (default `performance.now()`; tests
   * pass a fake). `processLabels`: on every process series, where the process hosts more
   * than this relay (npm start's `shared_with="sim"`), so they are never read as the relay's alone.
   */
  constructor(options: { readonly now?: () => number; readonly processLabels?: ProcessLabels } = {}) {
    this.#process = processRegistry(options.processLabels);
    for (const [name, family] of Object.entries(RELAY_METRICS) as [FamilyName, MetricFamily][]) this.#declare(name, family, family.type === "gauge" ? this.#collectReaders(name) : undefined);
    this.workqueue = new WorkQueueMetrics(this.#queueSink(), options.now);
    for (const [name, family] of Object.entries(KUBERNETES_METRICS) as [UpstreamName, MetricFamily][]) this.#declare(name, family, this.#collectUpstream(name));
    this.restClient = {
      request: (method, host, code) => this.#counter("rest_client_requests_total").inc({ code, method, host }),
      latency: (verb, host, seconds) => this.#histogram("rest_client_request_duration_seconds").observe({ verb, host }, seconds),
    };
    this.leaderElection = {
      leaderOn: (name) => this.#gaugeOf("leader_election_master_status").set({ name }, 1),
      leaderOff: (name) => this.#gaugeOf("leader_election_master_status").set({ name }, 0),
    };
  }

  /** The Content-Type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Adds `by` to one series of a counter: its family and the values of the family's labels (prom-client renders and escapes them). */
  inc<N extends CounterName>(family: N, labels: LabelsOf<N>, by = 1): void {
    this.#counter(family).inc(labels, by);
  }

  /** A series of a gauge, read at scrape time. */
  gauge<N extends GaugeName>(family: N, labels: LabelsOf<N>, read: () => number): void {
    this.#readers.get(family)?.push({ labels, read });
  }

  /** Records one reconcile latency in seconds, by controller (`edgeloop_reconcile_duration_seconds`). */
  observe(controller: string, seconds: number): void {
    this.#histogram("edgeloop_reconcile_duration_seconds").observe({ controller }, seconds);
  }

  /** The exposition text: every declared family with its HELP and TYPE, then its series; then the process's. */
  render(): Promise<string> {
    return Registry.merge([this.registry, this.#process]).metrics();
  }

  #declare(name: AnyFamily, family: MetricFamily, collect: (() => void) | undefined): void {
    const common = { name, help: family.help, labelNames: [...family.labels], registers: [this.registry], ...(collect ? { collect } : {}) };
    const instrument = family.type === "counter" ? new Counter(common) : family.type === "gauge" ? new Gauge(common) : new Histogram({ ...common, buckets: [...(family.buckets ?? [])] });
    this.#instruments.set(name, instrument);
  }

  /** Sets a gauge family's series from their readers, at scrape time. */
  #collectReaders(name: FamilyName): () => void {
    const readers: { labels: Labels; read: () => number }[] = [];
    this.#readers.set(name, readers);
    return () => {
      const gauge = this.#gaugeOf(name);
      for (const { labels, read } of readers) gauge.set(labels, read());
    };
  }

  /** The upstream gauges computed at scrape time: the age of the work in flight (client-go updates them every 500 ms instead). */
  #collectUpstream(name: UpstreamName): (() => void) | undefined {
    if (name !== "workqueue_unfinished_work_seconds" && name !== "workqueue_longest_running_processor_seconds") return undefined;
    return () => {
      const gauge = this.#gaugeOf(name);
      for (const [controller, work] of this.workqueue.unfinished()) gauge.set({ name: controller }, name === "workqueue_unfinished_work_seconds" ? work.unfinishedSeconds : work.longestSeconds);
    };
  }

  #queueSink(): QueueMetricsSink {
    return {
      named: (name) => {
        // As client-go and controller-runtime do for each queue and controller, every series starts at 0.
        for (const family of ["workqueue_adds_total", "workqueue_retries_total"] as const) this.#counter(family).inc({ name }, 0);
        this.#gaugeOf("workqueue_depth").inc({ name }, 0);
        for (const result of RECONCILE_RESULTS) this.#counter("controller_runtime_reconcile_total").inc({ controller: name, result }, 0);
        this.#counter("controller_runtime_reconcile_errors_total").inc({ controller: name }, 0);
      },
      depth: (name, delta) => this.#gaugeOf("workqueue_depth").inc({ name }, delta),
      added: (name) => this.#counter("workqueue_adds_total").inc({ name }),
      queued: (name, seconds) => this.#histogram("workqueue_queue_duration_seconds").observe({ name }, seconds),
      worked: (name, seconds) => this.#histogram("workqueue_work_duration_seconds").observe({ name }, seconds),
      retried: (name) => this.#counter("workqueue_retries_total").inc({ name }),
      reconciled: (controller: string, result: ReconcileResult, seconds: number) => {
        this.#counter("controller_runtime_reconcile_total").inc({ controller, result });
        if (result === "error") this.#counter("controller_runtime_reconcile_errors_total").inc({ controller });
        this.#histogram("controller_runtime_reconcile_time_seconds").observe({ controller }, seconds);
      },
    };
  }

  #counter(name: AnyFamily): Counter {
    return this.#instrument(name, Counter);
  }

  #gaugeOf(name: AnyFamily): Gauge {
    return this.#instrument(name, Gauge);
  }

  #histogram(name: AnyFamily): Histogram {
    return this.#instrument(name, Histogram);
  }

  #instrument<T extends Instrument>(name: AnyFamily, type: abstract new (...args: never[]) => T): T {
    const instrument = this.#instruments.get(name);
    if (!(instrument instanceof type)) throw new Error(`${name} is not a declared ${type.name.toLowerCase()}`);
    return instrument;
  }
}
