/**
 * What a FederatedLearningJob's status says, read from its pods: the phase, the one
 * current condition, the counts, and the Event that goes with a change.
 */
import type { Decided } from "../../../kit/controller.ts";
import type { KubeObject, ReconcileRequest } from "../../../../protocol/index.ts";
import { eventOn, statusIfChanged, statusOf } from "../../../kit/actions.ts";
import { Condition, setExclusive, uniqueByType, type ConditionUpdate } from "../../../kit/conditions.ts";
import { isTerminating } from "../../../kit/owner.ts";
import type { Slot } from "./desired.ts";
import { FL_CONDITION_TYPES, ROUND_REPORT_REASON, type FederatedLearningPhase, type WorkerPod } from "./schema.ts";

/** Condition reasons a user has to act on: their Events are Warnings. */
export const INPUTS_NOT_READY = "InputsNotReady";
export const INVALID_SPEC = "InvalidSpec";
const WARNING_REASONS = new Set([INPUTS_NOT_READY, INVALID_SPEC, "WorkerFailed"]);

/** One worker slot as the status reads it (for the current spec hash). */
export interface WorkerView {
  readonly slot: Slot;
  /** Pods of the slot that are not being deleted. */
  readonly live: readonly KubeObject[];
  /** The slot's worker completed (a Succeeded pod, or recorded in the status). */
  readonly done: boolean;
  readonly failed: KubeObject | undefined;
}

/** The phase and the condition that tells why. */
export interface JobState {
  readonly phase: FederatedLearningPhase;
  readonly condition: ConditionUpdate;
}

/** The counts a status carries. */
export interface Counts {
  readonly active: number;
  readonly succeeded: number;
  readonly failed: number;
}

/** A pod's `status.phase`, if it has one. */
export function podPhase(pod: KubeObject): string | undefined {
  const phase = statusOf(pod)["phase"];
  return typeof phase === "string" ? phase : undefined;
}

function finished(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === "Succeeded" || phase === "Failed";
}

/** Pods that are pending or running and not being deleted (a Kubernetes Job's `active`). */
export function activePods(pods: readonly KubeObject[]): number {
  return pods.filter((p) => !isTerminating(p) && !finished(p)).length;
}

/**
 * The counts of a job whose workers are not (or no longer) read per slot: a finished job,
 * or one whose spec or inputs are unusable. `active` follows the pods (a Failed job's pods
 * that then fail too are no longer active); `succeeded` and `failed` never go below what
 * was recorded, since a finished pod may be deleted afterwards.
 */
export function podCounts(pods: readonly KubeObject[], current: Record<string, unknown>): Counts {
  const recorded = (key: string): number => {
    const value = current[key];
    return typeof value === "number" ? value : 0;
  };
  const count = (phase: string): number => pods.filter((p) => podPhase(p) === phase).length;
  return {
    active: activePods(pods),
    succeeded: Math.max(recorded("succeeded"), count("Succeeded")),
    failed: Math.max(recorded("failed"), count("Failed")),
  };
}

function slots(views: readonly WorkerView[]): string {
  return views.map((v) => v.slot).join(", ");
}

/** Why a slot's worker is not running yet: its pod's phase, node and failing condition. */
function waitingFor(view: WorkerView, creating: ReadonlyMap<Slot, string>): string {
  const pod = view.live[0];
  if (!pod) {
    const name = creating.get(view.slot);
    return `${view.slot} (${name === undefined ? "no pod" : `creating pod ${name}`})`;
  }
  const spec = pod["spec"];
  const node = typeof spec === "object" && spec !== null ? (spec as Record<string, unknown>)["nodeName"] : undefined;
  const parsed = Condition.array().safeParse(statusOf(pod)["conditions"] ?? []);
  const blocking = (parsed.success ? parsed.data : []).find((c) => c.status === "False" && c.message);
  const where = typeof node === "string" && node !== "" ? ` on node ${node}` : "";
  const why = blocking ? `: ${blocking.reason ?? blocking.type}: ${blocking.message ?? ""}` : "";
  return `${view.slot} (pod ${pod.metadata.name ?? ""} ${podPhase(pod) ?? "Pending"}${where}${why})`;
}

/**
 * The phase from the worker slots of the current spec: Failed when a worker failed,
 * Succeeded when every training worker did, Running only when every worker still to run
 * has a Running pod, Pending otherwise (a pod not started, pinned to a node that does not
 * run it, or not created yet), each with a condition saying which workers and why.
 * `creating` names the pods this plan creates, by slot.
 */
export function jobState(views: readonly WorkerView[], creating: ReadonlyMap<Slot, string> = new Map()): JobState {
  const failed = views.find((v) => v.failed);
  if (failed) {
    const pod = failed.failed;
    const reason = pod ? statusOf(pod)["reason"] : undefined;
    const detail = typeof reason === "string" ? ` (${reason})` : "";
    return {
      phase: "Failed",
      condition: { type: "Failed", status: "True", reason: "WorkerFailed", message: `worker ${failed.slot} failed: pod ${pod?.metadata.name ?? ""}${detail}` },
    };
  }
  const training = views.filter((v) => v.slot !== "aggregation");
  if (training.every((v) => v.done)) {
    return { phase: "Succeeded", condition: { type: "Complete", status: "True", reason: "TrainingCompleted", message: `the ${training.length} training worker(s) succeeded` } };
  }
  const toRun = views.filter((v) => !v.done);
  const waiting = toRun.filter((v) => !v.live.some((p) => podPhase(p) === "Running"));
  if (waiting.length > 0) {
    return { phase: "Pending", condition: { type: "Training", status: "False", reason: "WorkersNotRunning", message: `waiting for ${waiting.map((v) => waitingFor(v, creating)).join("; ")}` } };
  }
  const done = views.filter((v) => v.done);
  const message = `${toRun.length} of ${views.length} workers running (${slots(toRun)})${done.length > 0 ? `, ${done.length} succeeded (${slots(done)})` : ""}`;
  return { phase: "Running", condition: { type: "Training", status: "True", reason: "WorkersRunning", message } };
}

/**
 * The Training condition to write: while training goes on (Training True), the round a
 * LocalController last reported (`DoTraining`, through the edge channel) says more than
 * "N workers running", so it stays as it is; any other state replaces it.
 */
export function keepRoundReport(before: readonly Condition[], condition: ConditionUpdate | undefined): ConditionUpdate | undefined {
  if (condition?.type !== "Training" || condition.status !== "True") return condition;
  const previous = before.find((c) => c.type === "Training");
  if (previous?.status !== "True" || previous.reason !== ROUND_REPORT_REASON) return condition;
  return { ...condition, reason: ROUND_REPORT_REASON, message: previous.message ?? condition.message };
}

/** What one reconcile wants the status to say. */
export interface StatusInput extends Counts {
  readonly phase: FederatedLearningPhase;
  /** The current condition; none keeps the conditions as they are (a finished job). */
  readonly condition?: ConditionUpdate | undefined;
  readonly succeededWorkers?: readonly string[];
  /** The last pod observed in each slot of the current spec; none keeps what is recorded. */
  readonly workerPods?: readonly WorkerPod[];
  /** Whether this plan converges to the parent's generation (a finished job's does not). */
  readonly observed: boolean;
}

/**
 * The status action (only when something changed), and an Event when the phase or the
 * condition changes (or a Warning's message does: another reference went missing).
 */
export function statusActions(request: ReconcileRequest, parent: KubeObject, input: StatusInput): Decided[] {
  const current = statusOf(parent);
  const parsed = Condition.array().safeParse(current["conditions"] ?? []);
  const before = uniqueByType(parsed.success ? parsed.data : []);
  const condition = keepRoundReport(before, input.condition);
  const conditions = condition ? setExclusive(before, condition, FL_CONDITION_TYPES, request.now, "lastHeartbeatTime") : before;
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
  if (input.workerPods && (input.workerPods.length > 0 || current["workerPods"] !== undefined)) {
    next["workerPods"] = input.workerPods.map((entry) => ({ ...entry }));
  }
  if (input.observed && parent.metadata.generation !== undefined) next["observedGeneration"] = parent.metadata.generation;
  const status = statusIfChanged(parent, current, next);
  if (!condition || status.length === 0) return status;
  const warning = WARNING_REASONS.has(condition.reason);
  const previous = before.find((c) => c.type === condition.type);
  const changed =
    current["phase"] !== input.phase ||
    previous?.status !== condition.status ||
    previous.reason !== condition.reason ||
    (warning && previous.message !== condition.message);
  if (!changed) return status;
  return [...status, eventOn(parent, warning ? "Warning" : "Normal", condition.reason, `${input.phase}: ${condition.message}`)];
}
