import type { Decided, Decision } from "../../../kit/controller.ts";
import type { KubeObject, ReconcileRequest } from "../../../../protocol/index.ts";
import { errorFromZod } from "../../../../protocol/index.ts";
import { CLAIM_TTL_SECONDS, createOf, deleteOf, eventOn, statusIfChanged, statusOf } from "../../../kit/actions.ts";
import { syncNamedChild } from "../../../kit/children.ts";
import { Condition, setExclusive, uniqueByType, type ConditionUpdate } from "../../../kit/conditions.ts";
import { SPEC_HASH_LABEL, WORKER_SLOT_LABEL } from "../../../kit/labels.ts";
import { deletedChildren, isTerminating, ownedChildren } from "../../../kit/owner.ts";
import { datasetSpec, isMissing, modelSpec, type MissingReference } from "../referenced.ts";
import type { StorageSource } from "../storage.ts";
import { desiredPod, desiredService, podName, slotsOf, specHashOf, type JobInputs, type Slot } from "./desired.ts";
import { FL_CONDITION_TYPES, FederatedLearningSpec, type FederatedLearningPhase } from "./schema.ts";

/** The kinds a FederatedLearningJob owns, by `Kind.apiVersion` key. */
export const POD_KEY = "Pod.v1";
export const SERVICE_KEY = "Service.v1";

const WAIT_SECONDS = 2;

/** What one slot looks like in the snapshot, for the current spec hash. */
interface SlotView {
  readonly slot: Slot;
  /** Pods of the slot that are not being deleted. */
  readonly live: KubeObject[];
  /** Pods of the slot being deleted or reported deleted: candidates to be replaced. */
  readonly gone: KubeObject[];
  readonly done: boolean;
  readonly failed: KubeObject | undefined;
}

/** Everything one reconcile of a running job decided, before the status. */
interface Progress {
  readonly actions: Decided[];
  readonly claimed: boolean;
  readonly wait: boolean;
  readonly creating: boolean;
}

function phaseOf(pod: KubeObject): string | undefined {
  const status = pod["status"];
  if (typeof status !== "object" || status === null) return undefined;
  const phase = (status as Record<string, unknown>)["phase"];
  return typeof phase === "string" ? phase : undefined;
}

/**
 * Reconciles one FederatedLearningJob: one aggregation pod, its Service, one training pod
 * per worker entry. A deleted pod is replaced once per deletion (under a new name, with a
 * ledger claim on the deleted pod's uid); pods of an older spec-hash are replaced by pods
 * of the current one; a succeeded worker is never re-run; a Complete or Failed job, and
 * a job being deleted, are left alone.
 */
export function reconcileFederatedLearning(request: ReconcileRequest): Decision {
  const parent = request.parent;
  if (!parent || !parent.metadata.uid || isTerminating(parent)) return { actions: [] };
  const current = statusOf(parent);
  if (current["phase"] === "Succeeded" || current["phase"] === "Failed") return { actions: [] };
  const parsed = FederatedLearningSpec.safeParse(parent["spec"]);
  if (!parsed.success) {
    const error = errorFromZod(parsed.error, "spec").error;
    const condition: ConditionUpdate = { type: "Training", status: "False", reason: "InvalidSpec", message: `${error.path}: ${error.message}` };
    return { actions: withStatus(request, parent, { phase: "Pending", condition, active: 0, succeeded: 0, failed: 0 }) };
  }
  const spec = parsed.data;
  const inputs = resolveInputs(request, parent, spec);
  if (!("model" in inputs)) {
    const condition: ConditionUpdate = { type: "Training", status: "False", reason: "InputsNotReady", message: describeMissing(inputs) };
    return { actions: withStatus(request, parent, { phase: "Pending", condition, active: 0, succeeded: 0, failed: 0 }) };
  }
  const hash = specHashOf(spec, inputs);
  const pods = ownedChildren(request, POD_KEY, parent);
  const views = slotsOf(spec).map((slot) => viewSlot(request, parent, pods, hash, slot));
  const failedPod = views.find((v) => v.failed)?.failed;
  const complete = views.filter((v) => v.slot !== "aggregation").every((v) => v.done);
  const terminal = failedPod !== undefined || complete;
  const progress = terminal ? { actions: [], claimed: false, wait: false, creating: false } : converge(request, parent, spec, inputs, hash, pods, views);
  const active = views.reduce((sum, v) => sum + v.live.filter((p) => phaseOf(p) !== "Succeeded" && phaseOf(p) !== "Failed").length, 0);
  const succeeded = views.filter((v) => v.done).length;
  const failed = views.filter((v) => v.failed).length;
  const phase: FederatedLearningPhase = failedPod
    ? "Failed"
    : complete
      ? "Succeeded"
      : current["phase"] === "Running" || !progress.creating
        ? "Running"
        : "Pending";
  const condition = conditionFor(phase, failedPod);
  const succeededWorkers = views.filter((v) => v.done).map((v) => `${v.slot}@${hash}`);
  const actions = [...progress.actions, ...withStatus(request, parent, { phase, condition, active, succeeded, failed, succeededWorkers })];
  const requeue = progress.claimed ? CLAIM_TTL_SECONDS + 1 : progress.wait ? WAIT_SECONDS : undefined;
  return requeue === undefined ? { actions } : { actions, requeueAfterSeconds: requeue };
}

function resolveInputs(request: ReconcileRequest, parent: KubeObject, spec: FederatedLearningSpec): JobInputs | MissingReference[] {
  const namespace = parent.metadata.namespace;
  const model = modelSpec(request, namespace, spec.aggregationWorker.model.name);
  const pretrained = spec.pretrainedModel ? modelSpec(request, namespace, spec.pretrainedModel.name) : undefined;
  const datasets = spec.trainingWorkers.map((w) => datasetSpec(request, namespace, w.dataset.name));
  const missing = [model, ...(pretrained ? [pretrained] : []), ...datasets].filter(isMissing);
  if (missing.length > 0) return missing;
  const source = (s: object): StorageSource => s as StorageSource;
  return {
    model: source(model),
    pretrainedModel: pretrained ? source(pretrained) : undefined,
    datasets: datasets.map(source),
  };
}

function describeMissing(missing: readonly MissingReference[]): string {
  return missing.map((m) => `${m.kind} ${m.name} ${m.reason === "NotFound" ? "not found" : "invalid"}`).join(", ");
}

function viewSlot(request: ReconcileRequest, parent: KubeObject, pods: readonly KubeObject[], hash: string, slot: Slot): SlotView {
  const mine = (p: KubeObject): boolean => p.metadata.labels?.[SPEC_HASH_LABEL] === hash && p.metadata.labels?.[WORKER_SLOT_LABEL] === slot;
  const present = pods.filter(mine);
  const presentUids = new Set(present.map((p) => p.metadata.uid));
  const deleted = deletedChildren(request, POD_KEY, parent).filter((p) => mine(p) && !presentUids.has(p.metadata.uid));
  const known = [...present, ...deleted];
  const recorded = readSucceeded(parent).has(`${slot}@${hash}`);
  return {
    slot,
    live: present.filter((p) => !isTerminating(p)),
    gone: known.filter((p) => isTerminating(p) || !presentUids.has(p.metadata.uid)),
    done: recorded || known.some((p) => phaseOf(p) === "Succeeded"),
    failed: known.find((p) => phaseOf(p) === "Failed"),
  };
}

function readSucceeded(parent: KubeObject): Set<string> {
  const list = statusOf(parent)["succeededWorkers"];
  return new Set(Array.isArray(list) ? list.filter((v): v is string => typeof v === "string") : []);
}

/** Rolls old-spec pods, fills every empty slot that is not done, removes duplicates, keeps the Service. */
function converge(
  request: ReconcileRequest,
  parent: KubeObject,
  spec: FederatedLearningSpec,
  inputs: JobInputs,
  hash: string,
  pods: readonly KubeObject[],
  views: readonly SlotView[],
): Progress {
  const actions: Decided[] = [];
  const old = pods.filter((p) => p.metadata.labels?.[SPEC_HASH_LABEL] !== hash && !isTerminating(p));
  for (const pod of old) actions.push(deleteOf(pod));
  if (old.length > 0) {
    actions.push(eventOn(parent, "Normal", "SpecUpdated", `replacing ${old.length} pod(s) of an older spec with spec ${hash}: ${names(old)}`));
  }
  let claimed = false;
  const created: KubeObject[] = [];
  for (const view of views) {
    if (view.done) continue;
    if (view.live.length > 1) {
      const extras = [...view.live].sort(byAge).slice(1);
      for (const pod of extras) actions.push(deleteOf(pod));
      actions.push(eventOn(parent, "Normal", "Deduplicated", `deleted duplicate pod(s) of worker ${view.slot}: ${names(extras)}`));
    }
    if (view.live.length > 0) continue;
    const predecessor = lastOfChain(parent, hash, view);
    if (!predecessor) {
      created.push(desiredPod(parent, spec, inputs, hash, view.slot));
      continue;
    }
    const uid = predecessor.metadata.uid ?? "";
    const pod = desiredPod(parent, spec, inputs, hash, view.slot, uid);
    const claim = { key: `${parent.metadata.uid ?? ""}/Pod/${uid}`, ttlSeconds: CLAIM_TTL_SECONDS };
    actions.push(createOf(pod, claim));
    actions.push(eventOn(parent, "Normal", "Recreated", `recreated worker ${view.slot} as pod ${pod.metadata.name ?? ""} (pod ${predecessor.metadata.name ?? ""} was deleted)`, claim));
    claimed = true;
  }
  for (const pod of created) actions.push(createOf(pod));
  if (created.length > 0) actions.push(eventOn(parent, "Normal", "Created", `created pod(s) ${names(created)}`));
  const service = syncNamedChild({
    parent,
    desired: desiredService(parent),
    observed: request.children[SERVICE_KEY] ?? [],
    deleted: deletedChildren(request, SERVICE_KEY, parent),
    patchOf: (_observed, desired) => ({ metadata: { labels: desired.metadata.labels }, spec: desired["spec"] }),
  });
  actions.push(...service.actions);
  const creating = created.length > 0 || claimed;
  return { actions, claimed: claimed || service.claimed, wait: service.wait, creating };
}

/**
 * The deleted pod a replacement is named after. When several deletions of one slot
 * arrive together (a pod and its own replacement), the one whose replacement is not
 * itself among them is the last: replacing it yields a fresh name.
 */
function lastOfChain(parent: KubeObject, hash: string, view: SlotView): KubeObject | undefined {
  const goneNames = new Set(view.gone.map((p) => p.metadata.name));
  const leaves = view.gone.filter((p) => !goneNames.has(podName(parent, hash, view.slot, p.metadata.uid)));
  return [...(leaves.length > 0 ? leaves : view.gone)].sort((a, b) => (a.metadata.uid ?? "").localeCompare(b.metadata.uid ?? ""))[0];
}

function byAge(a: KubeObject, b: KubeObject): number {
  const time = (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "");
  return time !== 0 ? time : (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "");
}

function names(objects: readonly KubeObject[]): string {
  return objects.map((o) => o.metadata.name ?? "").join(", ");
}

function conditionFor(phase: FederatedLearningPhase, failedPod: KubeObject | undefined): ConditionUpdate | undefined {
  switch (phase) {
    case "Failed":
      return { type: "Failed", status: "True", reason: "WorkerFailed", message: `pod ${failedPod?.metadata.name ?? ""} failed` };
    case "Succeeded":
      return { type: "Complete", status: "True", reason: "TrainingCompleted", message: "the training workers succeeded" };
    case "Running":
      return { type: "Training", status: "True", reason: "WorkersRunning", message: "the aggregation and training workers are running" };
    default:
      return undefined;
  }
}

interface StatusInput {
  readonly phase: FederatedLearningPhase;
  readonly condition: ConditionUpdate | undefined;
  readonly active: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly succeededWorkers?: readonly string[];
}

/** The status action (only when something changed), and an Event when the phase changes. */
function withStatus(request: ReconcileRequest, parent: KubeObject, input: StatusInput): Decided[] {
  const current = statusOf(parent);
  const parsed = Condition.array().safeParse(current["conditions"] ?? []);
  const before = uniqueByType(parsed.success ? parsed.data : []);
  const conditions = input.condition ? setExclusive(before, input.condition, FL_CONDITION_TYPES, request.now, "lastHeartbeatTime") : before;
  const next: Record<string, unknown> = {
    phase: input.phase,
    conditions,
    startTime: typeof current["startTime"] === "string" ? current["startTime"] : request.now,
    active: input.active,
    succeeded: input.succeeded,
    failed: input.failed,
  };
  if (input.phase === "Succeeded" || input.phase === "Failed") {
    next["completionTime"] = typeof current["completionTime"] === "string" ? current["completionTime"] : request.now;
  }
  if (input.succeededWorkers && (input.succeededWorkers.length > 0 || current["succeededWorkers"] !== undefined)) {
    next["succeededWorkers"] = [...input.succeededWorkers];
  }
  if (parent.metadata.generation !== undefined) next["observedGeneration"] = parent.metadata.generation;
  const status = statusIfChanged(parent, current, next);
  const reason = input.condition?.reason;
  const wasTrue = before.find((c) => c.status === "True");
  if (!input.condition || status.length === 0) return status;
  if (current["phase"] === input.phase && wasTrue?.reason === reason) return status;
  const eventType = input.phase === "Failed" ? "Warning" : "Normal";
  return [...status, eventOn(parent, eventType, input.condition.reason, `${input.phase}: ${input.condition.message}`)];
}
