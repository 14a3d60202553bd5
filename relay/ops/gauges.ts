/** The relay's gauges, read at scrape time: queue, leadership, process memory, cache size. */
import type { Metrics } from "./metrics.ts";

/** What the gauges read. */
export interface GaugeSources {
  readonly queue: { readonly depth: number; readonly retrying: number; readonly inFlight: number };
  leading(): boolean;
  cachedObjects(): number;
}

/**
 * Registers the relay's gauges on `metrics`. The process memory gauges carry the names
 * prom-client's `collectDefaultMetrics` gives them (ADR 0014), read here rather than by it:
 * it would start per-registry observers that are never released.
 */
export function registerGauges(metrics: Metrics, sources: GaugeSources): void {
  metrics.gauge("edgeloop_queue_depth", {}, () => sources.queue.depth);
  metrics.gauge("edgeloop_queue_waiting_retry", {}, () => sources.queue.retrying);
  metrics.gauge("edgeloop_queue_in_flight", {}, () => sources.queue.inFlight);
  metrics.gauge("edgeloop_leader", {}, () => (sources.leading() ? 1 : 0));
  metrics.gauge("process_resident_memory_bytes", {}, () => process.memoryUsage.rss());
  metrics.gauge("nodejs_heap_size_used_bytes", {}, () => process.memoryUsage().heapUsed);
  metrics.gauge("nodejs_heap_size_total_bytes", {}, () => process.memoryUsage().heapTotal);
  metrics.gauge("nodejs_external_memory_bytes", {}, () => process.memoryUsage().external);
  metrics.gauge("edgeloop_cached_objects", {}, () => sources.cachedObjects());
}
