/**
 * Every metric family the relay exports, with its type, HELP text (what it counts) and
 * label names. A series can be recorded only under a family declared here, with values
 * for exactly its labels (typed: {@link LabelsOf}), so `/metrics` never shows a family
 * without its own description. edgeloop's own families come first,
 * then the families Kubernetes operators already chart, under their upstream names,
 * labels, HELP and buckets (docs/adr/0014-metrics.md).
 */

/** One family: its Prometheus type, HELP text, label names and (histograms) buckets. */
export interface MetricFamily {
  readonly type: "counter" | "gauge" | "histogram";
  readonly help: string;
  readonly labels: readonly string[];
  readonly buckets?: readonly number[];
}

/** A family taken from upstream, with where its definition lives. */
export interface UpstreamFamily extends MetricFamily {
  readonly source: string;
}

/** edgeloop's reconcile latency buckets (seconds). */
const RECONCILE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The relay's own families, in the order `/metrics` lists them. */
export const RELAY_METRICS = {
  edgeloop_reconciles_total: {
    type: "counter",
    help: "Parent keys (or events batches) sent to the Worker, by controller and result: ok (its plan applied), retry (the plan stopped at a conflict or transient error), error (the Worker call failed), refused (the Worker refused the snapshot for good: a ReconcileRefused Event, no retry)",
    labels: ["controller", "result"],
  },
  edgeloop_reconcile_duration_seconds: { type: "histogram", help: "Seconds from sending a snapshot or events batch to the Worker until its plan was applied, by controller", labels: ["controller"], buckets: RECONCILE_BUCKETS },
  edgeloop_apply_errors_total: { type: "counter", help: "Plan actions that failed for good (each recorded as a Warning Event on the parent: FailedCreate, FailedDelete or ReconcileError), by controller and action type", labels: ["controller", "action"] },
  edgeloop_refused_actions_total: { type: "counter", help: "Plan actions the relay refused because they reach outside what their controller declares (a kind it does not write, or another namespace), by controller and action type", labels: ["controller", "action"] },
  edgeloop_status_echoes_ignored_total: { type: "counter", help: "Watch events of a parent that only echo a status write of the relay's own reconcile plans, which wake no reconcile (ADR 0018), by controller", labels: ["controller"] },
  edgeloop_watch_events_unchanged_total: { type: "counter", help: "Watch events that change none of the fields a controller's watch declares (only the resourceVersion or fields it does not read): not sent to an events controller, no reconcile of a snapshot controller's parent, by controller", labels: ["controller"] },
  edgeloop_watch_events_total: { type: "counter", help: "Watch events received by the relay's informers (initial lists included), by kind and event type", labels: ["kind", "type"] },
  edgeloop_relists_total: {
    type: "counter",
    help: "Full relists of an informer after its first list, by informer and reason: expired (410 Gone), too-large (the API server has not reached the relay's resourceVersion: its state went back), rollback (a list's resourceVersion went backwards), forced (SIGHUP)",
    labels: ["informer", "reason"],
  },
  edgeloop_watch_restarts_total: {
    type: "counter",
    help: "Watches ended and resumed from their resourceVersion (not a relist), by informer and reason: silent (no event nor bookmark within --watch-silence-seconds)",
    labels: ["informer", "reason"],
  },
  edgeloop_outbox_entries_total: { type: "counter", help: "Outbox entries (plans made by the Worker's timers) applied, by controller", labels: ["controller"] },
  edgeloop_channel_peers: { type: "gauge", help: "Peers connected to an edge channel's WebSocket (one socket each), by channel", labels: ["channel"] },
  edgeloop_channel_frames_total: {
    type: "counter",
    help: "Edge channel frames, by channel, direction and result: down (Worker to peer) sent (its write completed) or dropped (the peer not connected, the frame older than its connect's state, or the write failed); up (peer to Worker) accepted, refused (the Worker refused the frame: logged with its reason) or failed (the Worker refused the request, or the answer's actions did not apply)",
    labels: ["channel", "direction", "result"],
  },
  edgeloop_channel_connects_total: { type: "counter", help: "Peer sockets an edge channel accepted (a reconnect counts again), by channel", labels: ["channel"] },
  edgeloop_api_requests_total: { type: "counter", help: "Requests to the controllers' HTTP APIs answered by the relay's front, by API and HTTP status code", labels: ["api", "code"] },
  edgeloop_queue_depth: { type: "gauge", help: "Parent keys waiting in the work queue: ready, backing off after a failure, requeued for later, or dirty again while in flight", labels: [] },
  edgeloop_queue_waiting_retry: { type: "gauge", help: "Parent keys backing off after a failed reconcile (a part of edgeloop_queue_depth)", labels: [] },
  edgeloop_queue_in_flight: { type: "gauge", help: "Parent keys being reconciled right now", labels: [] },
  edgeloop_leader: { type: "gauge", help: "1 while this replica reconciles (holds the leader Lease, or runs without election), else 0", labels: [] },
  edgeloop_cached_objects: { type: "gauge", help: "Objects held in the relay's informer caches", labels: [] },
  edgeloop_queue_dropped_total: {
    type: "counter",
    help: "What the work queue dropped on purpose, by reason: duplicate-key (an add of a key already waiting, which rides on its next run), repeated-event (a later event of the same object and type replaced an earlier one a waiting key held): what keeps the queue bounded while the Worker is away",
    labels: ["reason"],
  },
  edgeloop_worker_up: { type: "gauge", help: "1 while the Worker answers the relay's calls (its last call or probe got an answer), 0 while it is unreachable: reconciles wait, nothing is lost, admission and the APIs decided at the relay go on", labels: [] },
} as const satisfies Record<string, MetricFamily>;

/** client-go's `rest_client_request_duration_seconds` buckets (k8s.io/component-base/metrics/prometheus/restclient). */
const REST_CLIENT_LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];

/** client-go's workqueue latency buckets: `ExponentialBuckets(10e-7, 10, 10)`, 1 µs to 1,000 s. */
const WORKQUEUE_BUCKETS = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000];

/** controller-runtime's `controller_runtime_reconcile_time_seconds` buckets. */
const CONTROLLER_RUNTIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30,
  40, 50, 60,
];

const WORKQUEUE = "k8s.io/component-base/metrics/prometheus/workqueue (client-go's workqueue MetricsProvider)";
const CONTROLLER_RUNTIME = "sigs.k8s.io/controller-runtime/pkg/internal/controller/metrics";

/**
 * The families Kubernetes operators already chart, as upstream declares them (HELP without
 * the `[ALPHA]`/`[BETA]` stability prefix component-base adds). `name` of the workqueue
 * families and `controller` of controller-runtime's are the controller's name.
 */
export const KUBERNETES_METRICS = {
  workqueue_depth: { type: "gauge", help: "Current depth of workqueue", labels: ["name"], source: WORKQUEUE },
  workqueue_adds_total: { type: "counter", help: "Total number of adds handled by workqueue", labels: ["name"], source: WORKQUEUE },
  workqueue_queue_duration_seconds: { type: "histogram", help: "How long in seconds an item stays in workqueue before being requested.", labels: ["name"], buckets: WORKQUEUE_BUCKETS, source: WORKQUEUE },
  workqueue_work_duration_seconds: { type: "histogram", help: "How long in seconds processing an item from workqueue takes.", labels: ["name"], buckets: WORKQUEUE_BUCKETS, source: WORKQUEUE },
  workqueue_unfinished_work_seconds: {
    type: "gauge",
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    labels: ["name"],
    source: WORKQUEUE,
  },
  workqueue_longest_running_processor_seconds: { type: "gauge", help: "How many seconds has the longest running processor for workqueue been running.", labels: ["name"], source: WORKQUEUE },
  workqueue_retries_total: { type: "counter", help: "Total number of retries handled by workqueue", labels: ["name"], source: WORKQUEUE },
  controller_runtime_reconcile_total: { type: "counter", help: "Total number of reconciliations per controller", labels: ["controller", "result"], source: CONTROLLER_RUNTIME },
  controller_runtime_reconcile_errors_total: { type: "counter", help: "Total number of reconciliation errors per controller", labels: ["controller"], source: CONTROLLER_RUNTIME },
  controller_runtime_reconcile_time_seconds: { type: "histogram", help: "Length of time per reconciliation per controller", labels: ["controller"], buckets: CONTROLLER_RUNTIME_BUCKETS, source: CONTROLLER_RUNTIME },
  leader_election_master_status: {
    type: "gauge",
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labels: ["name"],
    source: "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection (client-go's leaderelection metrics)",
  },
  rest_client_requests_total: {
    type: "counter",
    help: "Number of HTTP requests, partitioned by status code, method, and host.",
    labels: ["code", "method", "host"],
    source: "k8s.io/component-base/metrics/prometheus/restclient (client-go's rest metrics; code is <error> when no answer came)",
  },
  rest_client_request_duration_seconds: {
    type: "histogram",
    help: "Request latency in seconds. Broken down by verb, and host.",
    labels: ["verb", "host"],
    buckets: REST_CLIENT_LATENCY_BUCKETS,
    source: "k8s.io/component-base/metrics/prometheus/restclient (client-go's rest metrics: a request's whole time, its retries included, until its answer is read)",
  },
} as const satisfies Record<string, UpstreamFamily>;

/** An upstream family's name. */
export type UpstreamName = keyof typeof KUBERNETES_METRICS;

/** A family name of the relay. */
export type FamilyName = keyof typeof RELAY_METRICS;

type OfType<T extends MetricFamily["type"]> = { [K in FamilyName]: (typeof RELAY_METRICS)[K]["type"] extends T ? K : never }[FamilyName];

/** The label values of one series of family `N`: one for each label the family declares, no other. */
export type LabelsOf<N extends FamilyName> = { readonly [L in (typeof RELAY_METRICS)[N]["labels"][number]]: string };

/** The counters' names. */
export type CounterName = OfType<"counter">;
/** The gauges' names. */
export type GaugeName = OfType<"gauge">;
