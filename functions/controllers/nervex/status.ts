/**
 * What a NerveXJob's status says: the phase (the coordinator's alone), one condition per
 * phase, the pods of each replica type, and the Event that goes with a phase change.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { Decided } from "../../kit/controller.ts";
import { eventOn, statusIfChanged, statusOf } from "../../kit/actions.ts";
import { setExclusive, type Condition } from "../../kit/conditions.ts";
import { isTerminating } from "../../kit/owner.ts";
import { REPLICA_TYPE_LABEL, type ReplicaType } from "./labels.ts";
import { CONTAINER_NAME } from "./ports.ts";
import { NerveXJobCondition, NerveXJobPhase, ReplicaCounts, type ReplicaStatusKey } from "./schema.ts";

/** Condition and Event reasons, upstream's: `NerveXJobCreated`, `NerveXJobRunning`, `NerveXJobSucceeded`, `NerveXJobFailed`, and ours `NerveXJobUnknown`. */
export function phaseReason(phase: NerveXJobPhase): string {
  return `NerveXJob${phase}`;
}

/** The condition types: one per phase. */
const CONDITION_TYPES: readonly NerveXJobPhase[] = NerveXJobPhase.options;

/** Where one pod stands: still to finish, or done either way. */
export type ReplicaState = "active" | "succeeded" | "failed";

/** A pod's `status.phase`, if it has one. */
export function podPhase(pod: KubeObject): string | undefined {
  const phase = statusOf(pod)["phase"];
  return typeof phase === "string" ? phase : undefined;
}

/**
 * The exit code of the NerveX container when it has terminated in a pod still Running (a
 * sidecar keeps it up): the worker is done although the pod is not. The same container
 * ports and resources use; upstream looked for a container named after the replica type.
 */
function nervexExitCode(pod: KubeObject): number | undefined {
  const statuses = statusOf(pod)["containerStatuses"];
  if (!Array.isArray(statuses)) return undefined;
  const mine = statuses.find((s): s is Record<string, unknown> => typeof s === "object" && s !== null && (s as Record<string, unknown>)["name"] === CONTAINER_NAME);
  const state = mine?.["state"];
  const terminated = typeof state === "object" && state !== null ? (state as Record<string, unknown>)["terminated"] : undefined;
  if (typeof terminated !== "object" || terminated === null) return undefined;
  const code = (terminated as Record<string, unknown>)["exitCode"];
  return typeof code === "number" ? code : 1;
}

/** A pod's state: its phase, or its NerveX container's end while the pod still runs. Unknown counts as active. */
export function replicaState(pod: KubeObject): ReplicaState {
  const phase = podPhase(pod);
  if (phase === "Succeeded") return "succeeded";
  if (phase === "Failed") return "failed";
  const code = phase === "Running" ? nervexExitCode(pod) : undefined;
  if (code === undefined) return "active";
  return code === 0 ? "succeeded" : "failed";
}

/** The job phase a coordinator pod stands for. */
export function coordinatorPhase(pod: KubeObject): NerveXJobPhase {
  const state = replicaState(pod);
  if (state === "succeeded") return "Succeeded";
  if (state === "failed") return "Failed";
  const phase = podPhase(pod);
  if (phase === "Running") return "Running";
  if (phase === "Unknown") return "Unknown";
  return "Created";
}

/** Whether a phase is final: the job never runs again. */
export function isFinished(phase: NerveXJobPhase | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** The phase the status records, if it is one. */
export function recordedPhase(parent: KubeObject): NerveXJobPhase | undefined {
  const parsed = NerveXJobPhase.safeParse(statusOf(parent)["phase"]);
  return parsed.success ? parsed.data : undefined;
}

const STATUS_KEYS: Readonly<Record<Exclude<ReplicaType, "ddp-learner">, ReplicaStatusKey>> = {
  coordinator: "Coordinator",
  collector: "Collector",
  learner: "Learner",
  aggregator: "Aggregator",
};

/** Every key of `replicaStatus`, each with zero counts (upstream lists all four). */
type ReplicaStatus = Record<ReplicaStatusKey, { active: number; succeeded: number; failed: number }>;

function recordedCounts(parent: KubeObject, key: ReplicaStatusKey): { succeeded: number; failed: number } {
  const record = statusOf(parent)["replicaStatus"];
  const entry = typeof record === "object" && record !== null ? (record as Record<string, unknown>)[key] : undefined;
  const parsed = ReplicaCounts.safeParse(entry ?? {});
  return { succeeded: parsed.success ? (parsed.data.succeeded ?? 0) : 0, failed: parsed.success ? (parsed.data.failed ?? 0) : 0 };
}

/**
 * Pods per replica type (by the `replica-type` label), pods being deleted left out as
 * upstream did. For a finished job the succeeded and failed counts never go below what was
 * recorded: its cleanup deletes pods, not what they did.
 */
export function replicaStatusOf(parent: KubeObject, pods: readonly KubeObject[], finished: boolean): ReplicaStatus {
  const out: ReplicaStatus = {
    Coordinator: { active: 0, succeeded: 0, failed: 0 },
    Collector: { active: 0, succeeded: 0, failed: 0 },
    Learner: { active: 0, succeeded: 0, failed: 0 },
    Aggregator: { active: 0, succeeded: 0, failed: 0 },
  };
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const type = pod.metadata.labels?.[REPLICA_TYPE_LABEL];
    const key = type !== undefined && type in STATUS_KEYS ? STATUS_KEYS[type as keyof typeof STATUS_KEYS] : undefined;
    if (!key) continue;
    out[key][replicaState(pod)] += 1;
  }
  if (finished) {
    for (const key of Object.keys(out) as ReplicaStatusKey[]) {
      const before = recordedCounts(parent, key);
      out[key].succeeded = Math.max(out[key].succeeded, before.succeeded);
      out[key].failed = Math.max(out[key].failed, before.failed);
    }
  }
  return out;
}

/** The message of each phase's condition; fixed per job, so an unchanged reconcile writes nothing. */
export function phaseMessage(phase: NerveXJobPhase, job: string, coordinator: string): string {
  switch (phase) {
    case "Created":
      return `NerveXJob ${job} created: coordinator ${coordinator} is not running yet`;
    case "Running":
      return `coordinator ${coordinator} of NerveXJob ${job} is running`;
    case "Succeeded":
      return `NerveXJob ${job} succeeded because coordinator ${coordinator} succeeded`;
    case "Failed":
      return `NerveXJob ${job} failed because coordinator ${coordinator} failed`;
    case "Unknown":
      return `the state of coordinator ${coordinator} of NerveXJob ${job} is unknown`;
  }
}

/**
 * Sets the phase's condition True and every other phase's condition present False (the
 * kit's exclusive conditions; NerveX names the heartbeat `lastUpdateTime`). Times move
 * only when the condition changes.
 */
export function conditionsFor(parent: KubeObject, phase: NerveXJobPhase, message: string, now: string): NerveXJobCondition[] {
  const parsed = NerveXJobCondition.array().safeParse(statusOf(parent)["conditions"] ?? []);
  const before: Condition[] = (parsed.success ? parsed.data : []).map(({ lastUpdateTime, ...rest }) => ({ ...rest, ...(lastUpdateTime ? { lastHeartbeatTime: lastUpdateTime } : {}) }));
  const after = setExclusive(before, { type: phase, status: "True", reason: phaseReason(phase), message }, CONDITION_TYPES, now, "lastHeartbeatTime");
  return after.map(({ lastHeartbeatTime, lastProbeTime: _probe, ...rest }) => ({ ...rest, type: rest.type as NerveXJobPhase, ...(lastHeartbeatTime ? { lastUpdateTime: lastHeartbeatTime } : {}) }));
}

/** What one reconcile wants the status to say. */
export interface StatusInput {
  readonly phase: NerveXJobPhase;
  readonly message: string;
  readonly replicaStatus: ReplicaStatus;
  readonly coordinatorUid: string | undefined;
}

/** The status action (only when something changed), and the phase's Event when the phase changes. */
export function statusActions(parent: KubeObject, input: StatusInput, now: string): Decided[] {
  const current = statusOf(parent);
  const next: Record<string, unknown> = {
    phase: input.phase,
    conditions: conditionsFor(parent, input.phase, input.message, now),
    replicaStatus: input.replicaStatus,
  };
  if (input.coordinatorUid !== undefined) next["coordinatorUid"] = input.coordinatorUid;
  const status = statusIfChanged(parent, current, next);
  if (current["phase"] === input.phase) return status;
  const warning = input.phase === "Failed" || input.phase === "Unknown";
  return [...status, eventOn(parent, warning ? "Warning" : "Normal", phaseReason(input.phase), input.message)];
}
