/**
 * A frame a LocalController sent → the actions that carry it into the cluster, as
 * upstream's `upstream.go` handlers do, validated first: only `status`, only of the kinds
 * upstream handles, only about an object this node was sent (else refused with a reason
 * code, and a Warning Event on the object when it exists).
 *
 * - FederatedLearningJob: the round report becomes the ONE `Training` condition, updated
 *   in place (reason `DoTraining`, message `Round N reaches at T`; upstream appends one per
 *   round without bound), written at the job's resourceVersion so a concurrent write of
 *   the conditions is not lost (a job already Succeeded or Failed keeps its conditions);
 *   the first model's metrics go to the aggregation worker's Model (`status.metrics` as
 *   upstream's `ConvertMapToMetrics`, and `updateTime`).
 * - Dataset: its status (`numberOfSamples`, `updateTime` defaulted to now).
 * - JointInferenceService: the service info (less `startTime` and `updateTime`) as its
 *   `status.metrics`.
 */
import { z } from "zod";
import { refOf, type Action, type KubeObject } from "../../../../../protocol/index.ts";
import { eventOn, statusOf } from "../../../../kit/actions.ts";
import { Condition, setCondition, uniqueByType } from "../../../../kit/conditions.ts";
import { DatasetStatus } from "../../dataset.ts";
import { ROUND_REPORT_REASON } from "../../federatedlearning/schema.ts";
import type { KeyValue } from "../../group.ts";
import { channelKey, type Header, type Upstream } from "./frames.ts";
import type { EdgeKind } from "./targets.ts";

/** The reason codes of a refused frame (metric labels). */
export type RefusalReason = "malformed" | "too-large" | "unknown-operation" | "unsupported-kind" | "not-sent-to-peer" | "object-gone";

/** The Event reason of a refused frame. */
export const REFUSED_EVENT_REASON = "EdgeStatusRefused";

/** Most metrics one report may carry, and the longest key and value. */
export const MAX_METRICS = 64;
const MAX_METRIC_KEY = 256;
const MAX_METRIC_VALUE = 1024;

/** What deciding reads besides the frame. */
export interface ReceiveContext {
  /** The node that sent it. */
  readonly peer: string;
  /** The relay's clock, RFC 3339. */
  readonly now: string;
  /** The object as the view holds it, if it does. */
  find(kind: EdgeKind, namespace: string, name: string): KubeObject | undefined;
  /** Whether `key` was sent to this node and not since confirmed removed from it. */
  sentToPeer(key: string): boolean;
}

/** The kinds by the lower-case name a header carries. */
const KINDS: Readonly<Record<string, EdgeKind>> = {
  federatedlearningjob: "FederatedLearningJob",
  jointinferenceservice: "JointInferenceService",
  dataset: "Dataset",
  model: "Model",
};

/** The kinds upstream's GM takes status of (no Model handler). */
const REPORTING: ReadonlySet<EdgeKind> = new Set(["FederatedLearningJob", "JointInferenceService", "Dataset"]);

const MetricValues = z.record(z.string().max(MAX_METRIC_KEY), z.unknown());

/** A federated-learning worker's report (upstream's `updateFromEdge` struct). */
const FederatedLearningReport = z.object({
  phase: z.string().max(64).optional(),
  status: z.string().max(64).optional(),
  output: z
    .object({
      models: z.array(z.object({ metrics: MetricValues.nullish() }).loose()).max(16).nullish(),
      ownerInfo: z.object({ currentRound: z.number().int().min(0).max(1_000_000_000).optional(), updateTime: z.string().max(64).optional() }).loose().nullish(),
    })
    .nullish(),
});

/** A joint-inference worker's report: its service info becomes metrics. */
const JointInferenceReport = z.object({ output: z.object({ ownerInfo: MetricValues.nullish() }).nullish() });

/** The answer to a frame (a `ChannelReceiveAnswer`). */
export interface Reply {
  readonly accepted: boolean;
  readonly reason?: RefusalReason;
  readonly message?: string;
  readonly actions: Action[];
}

/** The answer to one frame. */
export function receive(upstream: Upstream, context: ReceiveContext): Reply {
  if (upstream.kind === "hello") return { accepted: true, actions: [] };
  if (upstream.kind === "refused") return refuse(upstream.reason, upstream.message, upstream.header && objectOf(upstream.header, context), context);
  const { header, content } = upstream;
  const kind = KINDS[header.resourceKind.toLowerCase()];
  const object = kind && context.find(kind, header.namespace, header.resourceName);
  if (header.operation !== "status") return refuse("unknown-operation", `operation ${JSON.stringify(header.operation)}: a LocalController sends only status`, object, context);
  if (!kind || !REPORTING.has(kind)) return refuse("unsupported-kind", `no status is taken of kind ${JSON.stringify(header.resourceKind)}`, object, context);
  if (!context.sentToPeer(channelKey(header.resourceKind, header.namespace, header.resourceName))) {
    return refuse("not-sent-to-peer", `${header.resourceKind} ${header.namespace}/${header.resourceName} was not sent to node ${context.peer}`, object, context);
  }
  if (!object) return refuse("object-gone", `${header.resourceKind} ${header.namespace}/${header.resourceName} no longer exists`, undefined, context);
  const decided = decide(kind, object, content, context);
  return "reason" in decided ? refuse(decided.reason, decided.message, object, context) : { accepted: true, actions: decided.actions };
}

type Decided = { readonly actions: Action[] } | { readonly reason: RefusalReason; readonly message: string };

function decide(kind: EdgeKind, object: KubeObject, content: unknown, context: ReceiveContext): Decided {
  switch (kind) {
    case "FederatedLearningJob":
      return federatedLearning(object, content, context);
    case "JointInferenceService":
      return jointInference(object, content);
    default:
      return dataset(object, content, context.now);
  }
}

/** A refusal, with a Warning Event on the object it names when that exists. */
function refuse(reason: RefusalReason, message: string, object: KubeObject | undefined, context: ReceiveContext): Reply {
  const actions: Action[] = object ? [eventOn(object, "Warning", REFUSED_EVENT_REASON, `status from node ${context.peer} refused (${reason}): ${message}`)] : [];
  return { accepted: false, reason, message: message.slice(0, 1024), actions };
}

function objectOf(header: Header, context: ReceiveContext): KubeObject | undefined {
  const kind = KINDS[header.resourceKind.toLowerCase()];
  return kind && context.find(kind, header.namespace, header.resourceName);
}

/** The first issue of a parse, naming its field. */
function malformed(error: z.ZodError): Decided {
  const issue = error.issues[0];
  return { reason: "malformed", message: issue ? `content.${issue.path.map(String).join(".")}: ${issue.message}` : "invalid content" };
}

/**
 * Upstream's `ConvertMapToMetrics`: each entry a `{key, value}`, a string value as it is
 * and any other as its JSON; by key (Go's map order is random, a stable order writes no
 * change twice). Undefined when there are more than {@link MAX_METRICS} or a value is too long.
 */
export function metricsOf(values: Readonly<Record<string, unknown>>): KeyValue[] | undefined {
  const entries = Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length > MAX_METRICS) return undefined;
  const metrics = entries.map(([key, value]) => ({ key, value: typeof value === "string" ? value : (JSON.stringify(value) ?? "null") }));
  return metrics.every((m) => m.value.length <= MAX_METRIC_VALUE) ? metrics : undefined;
}

function tooMany(): Decided {
  return { reason: "too-large", message: `more than ${MAX_METRICS} metrics, or a value longer than ${MAX_METRIC_VALUE}` };
}

function federatedLearning(job: KubeObject, content: unknown, context: ReceiveContext): Decided {
  const parsed = FederatedLearningReport.safeParse(content);
  if (!parsed.success) return malformed(parsed.error);
  const output = parsed.data.output;
  const actions: Action[] = [];
  const reported = output?.models?.[0]?.metrics;
  if (reported) {
    const metrics = metricsOf(reported);
    if (!metrics) return tooMany();
    const model = aggregationModel(job, context);
    if (metrics.length > 0 && model) actions.push({ type: "status", target: refOf(model), status: { metrics, updateTime: context.now } });
  }
  const round = output?.ownerInfo?.currentRound ?? 0;
  // A finished job's conditions say how it ended: a late round report does not make it Training again (its metrics still count).
  if (round > 0 && !finished(job)) {
    const training = roundCondition(job, `Round ${round} reaches at ${output?.ownerInfo?.updateTime ?? ""}`, context.now);
    if (training) actions.push(training);
  }
  return { actions };
}

/** Whether the job has Succeeded or Failed. */
function finished(job: KubeObject): boolean {
  const phase = statusOf(job)["phase"];
  return phase === "Succeeded" || phase === "Failed";
}

/** The Model the job's aggregation worker writes, when the view holds it. */
function aggregationModel(job: KubeObject, context: ReceiveContext): KubeObject | undefined {
  const spec = job["spec"] as { aggregationWorker?: { model?: { name?: unknown } } } | undefined;
  const name = spec?.aggregationWorker?.model?.name;
  return typeof name === "string" ? context.find("Model", job.metadata.namespace ?? "", name) : undefined;
}

/** The job's conditions with its one `Training` condition telling the round, at the job's resourceVersion; none when it already does. */
function roundCondition(job: KubeObject, message: string, now: string): Action | undefined {
  const parsed = Condition.array().safeParse(statusOf(job)["conditions"] ?? []);
  const before = uniqueByType(parsed.success ? parsed.data : []);
  const conditions = setCondition(before, { type: "Training", status: "True", reason: ROUND_REPORT_REASON, message }, now, "lastHeartbeatTime");
  if (before.length === conditions.length && before.every((c, i) => c === conditions[i])) return undefined;
  const version = job.metadata.resourceVersion;
  return { type: "status", target: refOf(job), status: { conditions }, ...(version ? { resourceVersion: version } : {}) };
}

function jointInference(service: KubeObject, content: unknown): Decided {
  const parsed = JointInferenceReport.safeParse(content);
  if (!parsed.success) return malformed(parsed.error);
  const info = parsed.data.output?.ownerInfo;
  // Upstream logs an empty report and writes nothing.
  if (!info) return { actions: [] };
  const { startTime: _start, updateTime: _update, ...rest } = info;
  const metrics = metricsOf(rest);
  if (!metrics) return tooMany();
  return { actions: [{ type: "status", target: refOf(service), status: { metrics } }] };
}

function dataset(object: KubeObject, content: unknown, now: string): Decided {
  const parsed = DatasetStatus.safeParse(content);
  if (!parsed.success) return malformed(parsed.error);
  return { actions: [{ type: "status", target: refOf(object), status: { numberOfSamples: parsed.data.numberOfSamples, updateTime: parsed.data.updateTime ?? now } }] };
}
