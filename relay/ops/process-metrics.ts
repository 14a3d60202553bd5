/**
 * The standard process and Node.js metrics (prom-client's `collectDefaultMetrics`:
 * `process_cpu_seconds_total`, `process_start_time_seconds`, `process_open_fds`,
 * `process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, …), which describe the
 * process, not one relay in it.
 *
 * One registry per process and label set, made on first use and kept: collectDefaultMetrics
 * starts observers (GC, event loop delay) that are never released, so a registry per relay
 * would add a set with every relay a test process starts. This is the one module-level
 * state of the relay, since the process itself is one.
 */
import { collectDefaultMetrics, Registry } from "prom-client";

/** Labels on every process series; `{}` where the relay is alone in its process. */
export type ProcessLabels = Readonly<Record<string, string>>;

const registries = new Map<string, Registry>();

/** The registry of this process's standard metrics, carrying `labels` on every series. */
export function processRegistry(labels: ProcessLabels = {}): Registry {
  // By code unit, not localeCompare: a key must not depend on the locale, and ICU's collator costs the process ~2.5 MiB.
  const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const known = registries.get(key);
  if (known) return known;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, labels: { ...labels } });
  registries.set(key, registry);
  return registry;
}
