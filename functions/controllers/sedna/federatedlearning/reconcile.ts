import type { Decided, Decision } from "../../../kit/controller.ts";
import type { KubeObject, ReconcileRequest } from "../../../../protocol/index.ts";
import { errorFromZod } from "../../../../protocol/index.ts";
import { CLAIM_TTL_SECONDS, createOf, deleteOf, eventOn, outcomeEvent, statusOf } from "../../../kit/actions.ts";
import { syncNamedChild } from "../../../kit/children.ts";
import { SPEC_HASH_LABEL, WORKER_SLOT_LABEL } from "../../../kit/labels.ts";
import { deletedChildren, isTerminating, ownedChildren } from "../../../kit/owner.ts";
import { datasetSpec, describeMissing, isMissing, modelSpec, type MissingReference } from "../referenced.ts";
import type { StorageSource } from "../storage.ts";
import { desiredPod, desiredService, podName, slotsOf, specHashOf, type JobInputs, type Slot } from "./desired.ts";
import { FederatedLearningSpec, WorkerPod } from "./schema.ts";
import { INPUTS_NOT_READY, INVALID_SPEC, activePods, jobState, podCounts, podPhase, statusActions, type WorkerView } from "./status.ts";

/** The kinds a FederatedLearningJob owns, by `Kind.apiVersion` key. */
export const POD_KEY = "Pod.v1";
export const SERVICE_KEY = "Service.v1";

const WAIT_SECONDS = 2;

/** What one slot looks like in the snapshot, for the current spec hash. */
interface SlotView extends WorkerView {
  readonly live: KubeObject[];
  /** Pods of the slot being deleted or reported deleted: candidates to be replaced. */
  readonly gone: KubeObject[];
}

/** The pod a replacement stands in for: seen deleted or terminating, or only remembered. */
interface Predecessor {
  readonly name: string;
  readonly uid: string | undefined;
  /** Whether the snapshot shows it (a DELETED trigger, a terminating pod) or only the status recalls it. */
  readonly seen: boolean;
}

/** Everything one reconcile of a running job decided, before the status. */
interface Progress {
  readonly actions: Decided[];
  readonly claimed: boolean;
  readonly wait: boolean;
  /** The pods this plan creates, by slot. */
  readonly creating: ReadonlyMap<Slot, string>;
}

/**
 * Reconciles one FederatedLearningJob: one aggregation pod, its Service, one training pod
 * per worker entry. A deleted pod is replaced once per deletion (under a new name, with a
 * ledger claim on the deleted pod's uid), including one that vanished while no relay
 * watched (the status remembers each slot's last pod, so its replacement is still a
 * recreation); pods of an older spec-hash are replaced by pods of the current one; a
 * succeeded worker is never re-run; a Complete or Failed job, and a job being deleted,
 * are left alone (a finished job's counts still follow its pods).
 */
export function reconcileFederatedLearning(request: ReconcileRequest): Decision {
  const parent = request.parent;
  if (!parent || !parent.metadata.uid || isTerminating(parent)) return { actions: [] };
  const current = statusOf(parent);
  const pods = ownedChildren(request, POD_KEY, parent);
  const phase = current["phase"];
  if (phase === "Succeeded" || phase === "Failed") {
    return { actions: statusActions(request, parent, { phase, ...podCounts(pods, current), observed: false }) };
  }
  const parsed = FederatedLearningSpec.safeParse(parent["spec"]);
  if (!parsed.success) {
    const error = errorFromZod(parsed.error, "spec").error;
    const condition = { type: "Training", status: "False", reason: INVALID_SPEC, message: `${error.path}: ${error.message}` } as const;
    return { actions: statusActions(request, parent, { phase: "Pending", condition, ...podCounts(pods, current), observed: true }) };
  }
  const spec = parsed.data;
  const inputs = resolveInputs(request, parent, spec);
  if (!("model" in inputs)) {
    const condition = { type: "Training", status: "False", reason: INPUTS_NOT_READY, message: describeMissing(inputs) } as const;
    return { actions: statusActions(request, parent, { phase: "Pending", condition, ...podCounts(pods, current), observed: true }) };
  }
  const hash = specHashOf(spec, inputs);
  const views = slotsOf(spec).map((slot) => viewSlot(request, parent, pods, hash, slot));
  const observed = jobState(views).phase;
  const finished = observed === "Succeeded" || observed === "Failed";
  const remembered = readWorkerPods(parent);
  const progress = finished ? { actions: [], claimed: false, wait: false, creating: new Map<Slot, string>() } : converge(request, parent, spec, inputs, hash, pods, views, remembered);
  // Read again with the pods this plan creates, so the condition can name them.
  const state = jobState(views, progress.creating);
  const succeededWorkers = views.filter((v) => v.done).map((v) => `${v.slot}@${hash}`);
  const status = statusActions(request, parent, {
    ...state,
    active: activePods(pods),
    succeeded: views.filter((v) => v.done).length,
    failed: views.filter((v) => v.failed).length,
    succeededWorkers,
    workerPods: recordWorkerPods(views, hash, remembered),
    observed: true,
  });
  const actions = [...progress.actions, ...status];
  const requeue = progress.claimed ? CLAIM_TTL_SECONDS + 1 : progress.wait ? WAIT_SECONDS : undefined;
  return requeue === undefined ? { actions } : { actions, requeueAfterSeconds: requeue };
}

function resolveInputs(request: ReconcileRequest, parent: KubeObject, spec: FederatedLearningSpec): JobInputs | MissingReference[] {
  const namespace = parent.metadata.namespace;
  const model = modelSpec(request, namespace, spec.aggregationWorker.model.name, "spec.aggregationWorker.model.name");
  const pretrained = spec.pretrainedModel ? modelSpec(request, namespace, spec.pretrainedModel.name, "spec.pretrainedModel.name") : undefined;
  const datasets = spec.trainingWorkers.map((w, index) => datasetSpec(request, namespace, w.dataset.name, `spec.trainingWorkers[${index}].dataset.name`));
  const missing = [model, ...(pretrained ? [pretrained] : []), ...datasets].filter(isMissing);
  if (missing.length > 0) return missing;
  const source = (s: object): StorageSource => s as StorageSource;
  return {
    model: source(model),
    pretrainedModel: pretrained ? source(pretrained) : undefined,
    datasets: datasets.map(source),
  };
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
    done: recorded || known.some((p) => podPhase(p) === "Succeeded"),
    failed: known.find((p) => podPhase(p) === "Failed"),
  };
}

/** The slots' last pods as the status records them; an entry that does not parse is forgotten. */
function readWorkerPods(parent: KubeObject): WorkerPod[] {
  const list = statusOf(parent)["workerPods"];
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry) => {
    const parsed = WorkerPod.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * What the status should remember per slot of the current spec: the pod observed in it
 * (the oldest, the one deduplication keeps), or else what was remembered before. Only an
 * observed pod is recorded, never one this plan merely creates: a create the cache does not
 * show yet must not read as a pod that vanished. Entries of an older spec are dropped, so
 * a roll is never taken for a recreation.
 */
function recordWorkerPods(views: readonly SlotView[], hash: string, remembered: readonly WorkerPod[]): WorkerPod[] {
  return views.flatMap((view) => {
    const pod = [...view.live].sort(byAge).find((p) => p.metadata.uid && p.metadata.name);
    if (pod) return [{ slot: view.slot, specHash: hash, pod: pod.metadata.name ?? "", uid: pod.metadata.uid ?? "" }];
    const before = remembered.find((entry) => entry.slot === view.slot && entry.specHash === hash);
    return before ? [before] : [];
  });
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
  remembered: readonly WorkerPod[],
): Progress {
  const actions: Decided[] = [];
  const old = pods.filter((p) => p.metadata.labels?.[SPEC_HASH_LABEL] !== hash && !isTerminating(p));
  for (const pod of old) actions.push(deleteOf(pod));
  if (old.length > 0) {
    actions.push(eventOn(parent, "Normal", "SpecUpdated", `replacing ${old.length} pod(s) of an older spec with spec ${hash}: ${names(old)}`));
  }
  let claimed = false;
  const created: KubeObject[] = [];
  const recreated = new Map<Slot, string>();
  for (const view of views) {
    if (view.done) continue;
    if (view.live.length > 1) {
      const extras = [...view.live].sort(byAge).slice(1);
      for (const pod of extras) actions.push(deleteOf(pod));
      actions.push(eventOn(parent, "Normal", "Deduplicated", `deleted duplicate pod(s) of worker ${view.slot}: ${names(extras)}`));
    }
    if (view.live.length > 0) continue;
    const predecessor = seenPredecessor(parent, hash, view) ?? vanished(view.slot, hash, pods, remembered);
    if (!predecessor) {
      created.push(desiredPod(parent, spec, inputs, hash, view.slot));
      continue;
    }
    const pod = desiredPod(parent, spec, inputs, hash, view.slot, predecessor.uid ?? predecessor.name);
    const claim = { key: replacementKey(parent, view.slot, predecessor), ttlSeconds: CLAIM_TTL_SECONDS };
    const why = predecessor.seen ? "was deleted" : "is gone";
    actions.push(createOf(pod, claim));
    // Told only once the create is applied: a replacement the API server refused (a 403 while
    // kube-apiserver restarts) is no recreation, and the one made later is told then, once.
    actions.push(outcomeEvent(parent, "Recreated", `recreated worker ${view.slot} as pod ${pod.metadata.name ?? ""} (pod ${predecessor.name} ${why})`, claim));
    recreated.set(view.slot, pod.metadata.name ?? "");
    claimed = true;
  }
  const creating = new Map<Slot, string>(recreated);
  for (const pod of created) {
    actions.push(createOf(pod));
    creating.set(pod.metadata.labels?.[WORKER_SLOT_LABEL] ?? "", pod.metadata.name ?? "");
  }
  if (created.length > 0) actions.push(eventOn(parent, "Normal", "Created", `created pod(s) ${names(created)}`));
  const service = syncNamedChild({
    parent,
    desired: desiredService(parent),
    observed: request.children[SERVICE_KEY] ?? [],
    deleted: deletedChildren(request, SERVICE_KEY, parent),
    patchOf: (_observed, desired) => ({ metadata: { labels: desired.metadata.labels }, spec: desired["spec"] }),
  });
  actions.push(...service.actions);
  return { actions, claimed: claimed || service.claimed, wait: service.wait, creating };
}

/** The pod the snapshot shows deleted or terminating, when there is one: the usual case. */
function seenPredecessor(parent: KubeObject, hash: string, view: SlotView): Predecessor | undefined {
  const pod = lastOfChain(parent, hash, view);
  return pod ? { name: pod.metadata.name ?? "", uid: pod.metadata.uid, seen: true } : undefined;
}

/**
 * The slot's remembered pod when the snapshot no longer holds it (deleted while no relay
 * watched, so no DELETED event will ever come): its replacement is a recreation. A pod
 * the snapshot still holds under that uid or name is not gone.
 */
function vanished(slot: Slot, hash: string, pods: readonly KubeObject[], remembered: readonly WorkerPod[]): Predecessor | undefined {
  const entry = remembered.find((e) => e.slot === slot && e.specHash === hash);
  if (!entry) return undefined;
  const present = pods.some((p) => p.metadata.name === entry.pod || (entry.uid !== undefined && p.metadata.uid === entry.uid));
  return present ? undefined : { name: entry.pod, uid: entry.uid, seen: false };
}

/**
 * The ledger key that makes one disappearance yield one replacement. With the uid it is
 * the same key whether the deletion was seen (a DELETED trigger) or only remembered, so
 * the two routes to one disappearance share a claim; without it, the slot and name.
 */
function replacementKey(parent: KubeObject, slot: Slot, predecessor: Predecessor): string {
  const job = parent.metadata.uid ?? "";
  return predecessor.uid ? `${job}/Pod/${predecessor.uid}` : `${job}/Pod/${slot}/${predecessor.name}`;
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
