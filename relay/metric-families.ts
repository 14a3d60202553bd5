/**
 * Every metric family the relay exports, with its type and its HELP text (what it
 * counts). A series can be recorded only under a family declared here, so `/metrics`
 * never shows a family without its own description.
 */

/** One family: its Prometheus type and HELP text. */
export interface MetricFamily {
  readonly type: "counter" | "gauge" | "histogram";
  readonly help: string;
}

/** The relay's families, in the order `/metrics` lists them. */
export const RELAY_METRICS = {
  edgeloop_reconciles_total: {
    type: "counter",
    help: "Parent keys (or events batches) sent to the Worker, by controller and result: ok (its plan applied), retry (the plan stopped at a conflict or transient error), error (the Worker call failed), refused (the Worker refused the snapshot for good: a ReconcileRefused Event, no retry)",
  },
  edgeloop_reconcile_duration_seconds: { type: "histogram", help: "Seconds from sending a snapshot or events batch to the Worker until its plan was applied, by controller" },
  edgeloop_apply_errors_total: { type: "counter", help: "Plan actions that failed for good (each recorded as a Warning Event on the parent: FailedCreate, FailedDelete or ReconcileError), by controller and action type" },
  edgeloop_refused_actions_total: { type: "counter", help: "Plan actions the relay refused because they reach outside what their controller declares (a kind it does not write, or another namespace), by controller and action type" },
  edgeloop_watch_events_total: { type: "counter", help: "Watch events received by the relay's informers (initial lists included), by kind and event type" },
  edgeloop_relists_total: {
    type: "counter",
    help: "Full relists of an informer after its first list, by informer and reason: expired (410 Gone), too-large (the API server has not reached the relay's resourceVersion: its state went back), rollback (a list's resourceVersion went backwards), forced (SIGHUP)",
  },
  edgeloop_outbox_entries_total: { type: "counter", help: "Outbox entries (plans made by the Worker's timers) applied, by controller" },
  edgeloop_api_requests_total: { type: "counter", help: "Requests to the controllers' HTTP APIs answered by the relay's front, by API and HTTP status code" },
  edgeloop_queue_depth: { type: "gauge", help: "Parent keys waiting in the work queue: ready, backing off after a failure, requeued for later, or dirty again while in flight" },
  edgeloop_queue_waiting_retry: { type: "gauge", help: "Parent keys backing off after a failed reconcile (a part of edgeloop_queue_depth)" },
  edgeloop_queue_in_flight: { type: "gauge", help: "Parent keys being reconciled right now" },
  edgeloop_leader: { type: "gauge", help: "1 while this replica reconciles (holds the leader Lease, or runs without election), else 0" },
  edgeloop_cached_objects: { type: "gauge", help: "Objects held in the relay's informer caches" },
  process_resident_memory_bytes: { type: "gauge", help: "Resident memory of the relay process, in bytes" },
  nodejs_heap_size_used_bytes: { type: "gauge", help: "V8 heap in use, in bytes" },
  nodejs_heap_size_total_bytes: { type: "gauge", help: "V8 heap reserved, in bytes" },
  nodejs_external_memory_bytes: { type: "gauge", help: "Memory of C++ objects bound to JavaScript objects (buffers), in bytes" },
} as const satisfies Record<string, MetricFamily>;

/** A family name of the relay. */
export type FamilyName = keyof typeof RELAY_METRICS;

type OfType<T extends MetricFamily["type"]> = { [K in FamilyName]: (typeof RELAY_METRICS)[K]["type"] extends T ? K : never }[FamilyName];

/** A series of family `N`: its bare name, or with labels (`name{label="value"}`). */
export type Series<N extends string> = N | `${N}{${string}}`;

/** The counters' names. */
export type CounterName = OfType<"counter">;
/** The gauges' names. */
export type GaugeName = OfType<"gauge">;
