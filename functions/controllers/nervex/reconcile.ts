/**
 * Reconciles one NerveXJob: its coordinator pod and headless Service (the coordinator
 * asks the replicas API for collectors and learners itself), the status read from the
 * coordinator, and the cleanup of a finished job by its cleanPodPolicy.
 */
import type { KubeObject, ReconcileRequest } from "../../../protocol/index.ts";
import type { ControllerSettings, Decided, Decision } from "../../kit/controller.ts";
import { CLAIM_TTL_SECONDS, createOf, deleteOf, eventOn, outcomeEvent, statusOf } from "../../kit/actions.ts";
import { isControlledBy } from "../../../protocol/kube/owner.ts";
import { deletedChildren, isTerminating, ownedChildren } from "../../kit/owner.ts";
import { coordinatorName } from "./names.ts";
import { replicaObjects } from "./replica-pod.ts";
import { CleanPodPolicy, NerveXJob, type NerveXJobPhase } from "./schema.ts";
import { coordinatorPhase, isFinished, phaseMessage, podPhase, recordedPhase, replicaStatusOf, statusActions } from "./status.ts";

/** The kinds a NerveXJob owns, by `Kind.apiVersion` key. */
export const POD_KEY = "Pod.v1";
export const SERVICE_KEY = "Service.v1";

/**
 * Event reasons (besides the phase's, `NerveXJob<Phase>`): upstream's `SuccessfulCreate`
 * and `SuccessfulDelete` (recorded only once the relay applied the action; it records
 * `FailedCreate` / `FailedDelete` itself otherwise), and the kit's `Recreated` for a
 * coordinator replaced after a deletion (the relay's log reads that reason).
 */
export const SUCCESSFUL_CREATE = "SuccessfulCreate";
export const SUCCESSFUL_DELETE = "SuccessfulDelete";
export const RECREATED = "Recreated";

/** How soon to look again while a same-named object is still going away. */
const WAIT_SECONDS = 2;

/** The coordinator pod a recreation replaces: seen deleted, or only remembered by the status. */
interface Predecessor {
  readonly uid: string;
  readonly seen: boolean;
}

/** What converging the coordinator decided. */
interface Progress {
  readonly actions: Decided[];
  readonly requeueAfterSeconds?: number;
}

/** Reconciles one NerveXJob. Pure: the snapshot and `request.now` in, the decision out. */
export function reconcileNerveXJob(request: ReconcileRequest, settings: ControllerSettings): Decision {
  const parent = request.parent;
  if (!parent || !parent.metadata.uid || isTerminating(parent)) return { actions: [] };
  // The CRD schema keeps a malformed spec out; one that slips through is left alone.
  const parsed = NerveXJob.safeParse(parent);
  if (!parsed.success) return { actions: [] };
  const job = parsed.data;
  const jobName = job.metadata.name ?? "";
  const name = coordinatorName(jobName);
  const pods = ownedChildren(request, POD_KEY, parent);
  const services = ownedChildren(request, SERVICE_KEY, parent);
  const coordinator = pods.find((p) => p.metadata.name === name);
  const gone = deletedChildren(request, POD_KEY, parent).filter((p) => p.metadata.name === name && p.metadata.uid !== coordinator?.metadata.uid);
  const before = recordedPhase(parent);
  const phase = nextPhase(before, coordinator, gone);
  const finished = isFinished(phase);
  const remembered = statusOf(parent)["coordinatorUid"];
  const recorded = typeof remembered === "string" && remembered !== "" ? remembered : undefined;
  const live = coordinator && !isTerminating(coordinator) ? coordinator : undefined;
  const status = statusActions(
    parent,
    {
      phase,
      message: phaseMessage(phase, jobName, name),
      replicaStatus: replicaStatusOf(parent, pods, finished),
      coordinatorUid: live?.metadata.uid ?? recorded,
    },
    request.now,
  );
  if (finished) {
    // The status goes first: once the coordinator is deleted (cleanPodPolicy ALL), only
    // the recorded phase tells that the job is over and must not be restarted.
    return { actions: [...status, ...cleanup(parent, policyOf(job.spec.cleanPodPolicy), pods, services)] };
  }
  const progress = converge(request, parent, job, settings, { name, coordinator, gone, recorded, pods });
  const actions = [...progress.actions, ...status];
  return progress.requeueAfterSeconds === undefined ? { actions } : { actions, requeueAfterSeconds: progress.requeueAfterSeconds };
}

/**
 * The phase: a finished job stays finished; otherwise the coordinator's, or the last state
 * of a coordinator just deleted once it had ended (it finished, then went away); with no
 * coordinator at all, what was recorded (`Created` for a new job).
 */
function nextPhase(before: NerveXJobPhase | undefined, coordinator: KubeObject | undefined, gone: readonly KubeObject[]): NerveXJobPhase {
  if (before && isFinished(before)) return before;
  if (coordinator) return coordinatorPhase(coordinator);
  const ended = gone.map(coordinatorPhase).find(isFinished);
  return ended ?? before ?? "Created";
}

/** What the snapshot shows of the coordinator. */
interface CoordinatorView {
  readonly name: string;
  readonly coordinator: KubeObject | undefined;
  /** Coordinator pods of this job the triggers report deleted. */
  readonly gone: readonly KubeObject[];
  /** The uid of the coordinator pod the status last observed. */
  readonly recorded: string | undefined;
  readonly pods: readonly KubeObject[];
}

/** Creates the coordinator pod when there is none (a replacement under a ledger claim), and its Service when missing. */
function converge(request: ReconcileRequest, parent: KubeObject, job: NerveXJob, settings: ControllerSettings, view: CoordinatorView): Progress {
  const { name } = view;
  const { pod, service } = replicaObjects({ job, type: "coordinator", name, template: job.spec.coordinator.template, settings });
  const actions: Decided[] = [];
  let requeue: number | undefined;
  // A same-named pod that is not this job's (an older incarnation's, being collected) or
  // that is still terminating: a create would only get 409 AlreadyExists.
  const blocking = (request.children[POD_KEY] ?? []).some((p) => p.metadata.name === name && (!isControlledBy(p, parent) || isTerminating(p)));
  if (blocking) {
    requeue = WAIT_SECONDS;
  } else if (!view.coordinator) {
    const predecessor = predecessorOf(view);
    if (predecessor) {
      const claim = { key: `${parent.metadata.uid ?? ""}/Pod/${predecessor.uid}`, ttlSeconds: CLAIM_TTL_SECONDS };
      const why = predecessor.seen ? "was deleted" : "is gone";
      actions.push(createOf(pod, claim), eventOn(parent, "Normal", RECREATED, `recreated coordinator pod ${name} (pod ${predecessor.uid} ${why})`, claim));
      requeue = CLAIM_TTL_SECONDS + 1;
    } else {
      actions.push(createOf(pod), outcomeEvent(parent, SUCCESSFUL_CREATE, `Created pod: ${name}`));
    }
  }
  const services = request.children[SERVICE_KEY] ?? [];
  const sameService = services.filter((s) => s.metadata.name === name);
  if (sameService.length === 0) {
    actions.push(createOf(service), outcomeEvent(parent, SUCCESSFUL_CREATE, `Created service: ${name}`));
  } else if (sameService.some((s) => isTerminating(s) || !isControlledBy(s, parent))) {
    requeue = Math.min(requeue ?? WAIT_SECONDS, WAIT_SECONDS);
  }
  return requeue === undefined ? { actions } : { actions, requeueAfterSeconds: requeue };
}

/**
 * The coordinator a create replaces: one the triggers report deleted, else the one the
 * status recorded when the snapshot no longer holds it (deleted while no relay watched:
 * no DELETED event will come). Both key the claim on the same uid, so the two routes to
 * one disappearance yield one replacement.
 */
function predecessorOf(view: CoordinatorView): Predecessor | undefined {
  const seen = [...view.gone].map((p) => p.metadata.uid ?? "").filter((uid) => uid !== "").sort()[0];
  if (seen) return { uid: seen, seen: true };
  if (view.recorded && !view.pods.some((p) => p.metadata.uid === view.recorded)) return { uid: view.recorded, seen: false };
  return undefined;
}

/** Whether a finished job's policy deletes this pod. */
function cleans(policy: CleanPodPolicy, pod: KubeObject): boolean {
  if (policy === "ALL") return true;
  if (policy === "None") return false;
  // `Running`: pods not yet ended (a pod with no phase yet is Pending); the ended coordinator stays, for its logs.
  const phase = podPhase(pod);
  return phase === undefined || phase === "Pending" || phase === "Running" || phase === "Unknown";
}

/**
 * A finished job's cleanup: every Service, and the pods its policy names, each deleted once
 * (what is already being deleted is left alone, so a cleaned job decides nothing more).
 */
function cleanup(parent: KubeObject, policy: CleanPodPolicy, pods: readonly KubeObject[], services: readonly KubeObject[]): Decided[] {
  const actions: Decided[] = [];
  for (const service of services) {
    if (isTerminating(service)) continue;
    actions.push(deleteOf(service), outcomeEvent(parent, SUCCESSFUL_DELETE, `Deleted service: ${service.metadata.name ?? ""}`));
  }
  for (const pod of pods) {
    if (isTerminating(pod) || !cleans(policy, pod)) continue;
    actions.push(deleteOf(pod), outcomeEvent(parent, SUCCESSFUL_DELETE, `Deleted pod: ${pod.metadata.name ?? ""}`));
  }
  return actions;
}

/** The job's policy; absent or one the webhook would refuse (stored before it existed): the default, `Running`. */
function policyOf(value: string | undefined): CleanPodPolicy {
  const parsed = CleanPodPolicy.safeParse(value);
  return parsed.success ? parsed.data : "Running";
}
