/**
 * The status written back to the PodGroup objects that declare groups (ADR 0026), as
 * their own controllers write it:
 * - scheduler-plugins' PodGroup: `phase`, `running`, `succeeded`, `failed` and `occupiedBy`,
 *   by the state machine of its podgroup controller (`pkg/controllers/podgroup_controller.go`,
 *   v0.34.7): "" → Pending; Pending → Scheduling once `minMember` pods exist; then from the
 *   pods' phases Running (running + succeeded ≥ minMember), Failed (a failure among
 *   ≥ minMember pods), Finished (succeeded ≥ minMember), Pending again below `minMember`
 *   pods; Finished and Failed are final. That controller steps once per reconcile and its
 *   own write wakes the next: here the steps are taken at once (the fixpoint), since a
 *   finished group's pods are soon forgotten.
 * - the native PodGroup: the `PodGroupScheduled` condition as kube-scheduler writes it
 *   (`pkg/scheduler/schedule_one_podgroup.go` updatePodGroupCondition, v1.36.3): True with
 *   reason `Scheduled` once the group is placed, False with reason `Unschedulable` and the
 *   message when it is not; never back from True to False; `observedGeneration` set.
 */
import { asArray, asNumber, asObject, asString } from "./read.ts";
import type { PodRecord } from "./records.ts";

/** The phases of a scheduler-plugins PodGroup (v0.34.7). */
export type CoschedulingPhase = "Pending" | "Scheduling" | "Running" | "Unknown" | "Finished" | "Failed";

/** What is written of a scheduler-plugins PodGroup's status. */
export interface CoschedulingStatus {
  readonly phase: CoschedulingPhase | "";
  readonly running: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly occupiedBy: string;
}

const PHASES: readonly string[] = ["Pending", "Scheduling", "Running", "Unknown", "Finished", "Failed"];

/** The written fields of a status as the API serves it (omitted numbers are 0, as omitempty drops them). */
export function readCoschedulingStatus(status: unknown): CoschedulingStatus {
  const object = asObject(status) ?? {};
  const phase = asString(object["phase"]) ?? "";
  return {
    phase: PHASES.includes(phase) ? (phase as CoschedulingPhase) : "",
    running: asNumber(object["running"]) ?? 0,
    succeeded: asNumber(object["succeeded"]) ?? 0,
    failed: asNumber(object["failed"]) ?? 0,
    occupiedBy: asString(object["occupiedBy"]) ?? "",
  };
}

/** Whether two statuses say the same. */
export function sameCoschedulingStatus(a: CoschedulingStatus, b: CoschedulingStatus): boolean {
  return a.phase === b.phase && a.running === b.running && a.succeeded === b.succeeded && a.failed === b.failed && a.occupiedBy === b.occupiedBy;
}

/** One step of the podgroup controller's reconcile, from `current`. */
function step(current: CoschedulingStatus, minMember: number, pods: readonly PodRecord[], occupiedBy: string): CoschedulingStatus {
  switch (current.phase) {
    case "":
      return { ...current, phase: "Pending" };
    case "Pending":
      return pods.length >= minMember ? { ...current, phase: "Scheduling", occupiedBy: pods.length > 0 && occupiedBy !== "" ? occupiedBy : current.occupiedBy } : current;
    default: {
      const running = pods.filter((pod) => pod.phase === "Running").length;
      const succeeded = pods.filter((pod) => pod.phase === "Succeeded").length;
      const failed = pods.filter((pod) => pod.phase === "Failed").length;
      const counted = { ...current, running, succeeded, failed };
      if (pods.length < minMember) return { ...counted, phase: "Pending" };
      let phase: CoschedulingPhase = succeeded + running >= minMember ? "Running" : "Scheduling";
      if (failed !== 0 && failed + running + succeeded >= minMember) phase = "Failed";
      if (succeeded >= minMember) phase = "Finished";
      return { ...counted, phase };
    }
  }
}

/**
 * The status the podgroup controller would settle on from `base` (the status last written,
 * else the one observed), given the group's pods; `occupiedBy` is `namespace/owner` of the
 * group's first pod. Finished and Failed stay.
 */
export function coschedulingStatus(base: CoschedulingStatus, minMember: number, pods: readonly PodRecord[], occupiedBy: string): CoschedulingStatus {
  let current = base;
  for (let i = 0; i < PHASES.length + 1; i++) {
    if (current.phase === "Finished" || current.phase === "Failed") return current;
    const next = step(current, minMember, pods, occupiedBy);
    if (sameCoschedulingStatus(next, current)) return current;
    current = next;
  }
  return current;
}

/** The `PodGroupScheduled` condition type and its reasons (k8s.io/api scheduling/v1alpha2). */
export const POD_GROUP_SCHEDULED = "PodGroupScheduled";

/** What the scheduler says of a native PodGroup: placed, or not placeable with why. */
export type NativeOutcome = { readonly scheduled: true } | { readonly scheduled: false; readonly message: string };

/** A metav1.Condition as written. */
export interface Condition {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly observedGeneration?: number;
  readonly lastTransitionTime: string;
  readonly reason: string;
  readonly message: string;
}

/**
 * The conditions of a native PodGroup after `outcome`, or undefined when nothing changes
 * (the same status, reason and message, or a True that a later False would regress).
 * Other conditions are kept as they are; the time moves only when the status does.
 */
export function nativeConditions(observed: unknown, outcome: NativeOutcome, generation: number, now: string): unknown[] | undefined {
  const conditions = asArray(asObject(observed)?.["conditions"]);
  const existing = asObject(conditions.find((c) => asObject(c)?.["type"] === POD_GROUP_SCHEDULED));
  const status = outcome.scheduled ? "True" : "False";
  const reason = outcome.scheduled ? "Scheduled" : "Unschedulable";
  const message = outcome.scheduled ? "" : outcome.message;
  if (existing?.["status"] === "True" && status !== "True") return undefined;
  if (existing?.["status"] === status && existing["reason"] === reason && (asString(existing["message"]) ?? "") === message && existing["observedGeneration"] === generation) return undefined;
  const since = existing?.["status"] === status ? (asString(existing["lastTransitionTime"]) ?? now) : now;
  const condition: Condition = { type: POD_GROUP_SCHEDULED, status, observedGeneration: generation, lastTransitionTime: since, reason, message };
  return [...conditions.filter((c) => asObject(c)?.["type"] !== POD_GROUP_SCHEDULED), condition];
}
