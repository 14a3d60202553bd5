/** The relay's gauges, read at scrape time: queue, leadership, cache size, the Worker's reachability (the process's own: ./process-metrics.ts). */
import type { Metrics } from "./metrics.ts";

/** What the gauges read. */
export interface GaugeSources {
  readonly queue: { readonly depth: number; readonly retrying: number; readonly inFlight: number };
  leading(): boolean;
  cachedObjects(): number;
  /** Whether the Worker answered the last call or probe. */
  workerUp(): boolean;
}

/** Registers the relay's gauges on `metrics`. */
export function registerGauges(metrics: Metrics, sources: GaugeSources): void {
  metrics.gauge("edgeloop_queue_depth", {}, () => sources.queue.depth);
  metrics.gauge("edgeloop_queue_waiting_retry", {}, () => sources.queue.retrying);
  metrics.gauge("edgeloop_queue_in_flight", {}, () => sources.queue.inFlight);
  metrics.gauge("edgeloop_leader", {}, () => (sources.leading() ? 1 : 0));
  metrics.gauge("edgeloop_cached_objects", {}, () => sources.cachedObjects());
  metrics.gauge("edgeloop_worker_up", {}, () => (sources.workerUp() ? 1 : 0));
}
