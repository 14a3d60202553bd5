/**
 * Job conditions as the upstream Job controller writes them. A Job finishes in two
 * steps: first the interim `SuccessCriteriaMet` or `FailureTarget`, then, once no pod
 * is left terminating or uncounted, the terminal `Complete` or `Failed` with the same
 * reason and message.
 */
import { arr, type Obj } from "../runtime.ts";

/** One entry of `status.conditions`. */
export interface JobCondition {
  readonly type: string;
  readonly status: "True" | "False";
  readonly reason: string;
  readonly message: string;
  readonly lastProbeTime: string;
  readonly lastTransitionTime: string;
}

export const COMPLETIONS_REACHED = { reason: "CompletionsReached", message: "Reached expected number of succeeded pods" } as const;
export const BACKOFF_LIMIT_EXCEEDED = { reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" } as const;
export const DEADLINE_EXCEEDED = { reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" } as const;

/** A new condition stamped `now` (RFC 3339). */
export function newCondition(type: string, status: "True" | "False", reason: string, message: string, now: string): JobCondition {
  return { type, status, reason, message, lastProbeTime: now, lastTransitionTime: now };
}

/** The condition of `type` whose status is True, if any. */
export function trueCondition(conditions: unknown, type: string): Obj | undefined {
  return arr(conditions).find((c) => c.type === type && c.status === "True");
}

/** Whether the Job is finished: Complete or Failed is True. */
export function finished(status: Obj): boolean {
  return trueCondition(status.conditions, "Complete") !== undefined || trueCondition(status.conditions, "Failed") !== undefined;
}

/**
 * ensureJobConditionStatus: sets a condition's status, reason and message (restamped on
 * change); a False condition is never added where there was none. Returns the list and
 * whether it changed.
 */
export function ensureCondition(conditions: readonly Obj[], type: string, status: "True" | "False", reason: string, message: string, now: string): [Obj[], boolean] {
  const at = conditions.findIndex((c) => c.type === type);
  const existing = conditions[at];
  if (existing) {
    if (existing.status === status && existing.reason === reason && existing.message === message) return [[...conditions], false];
    const copy = [...conditions];
    copy[at] = { ...newCondition(type, status, reason, message, now) };
    return [copy, true];
  }
  if (status === "False") return [[...conditions], false];
  return [[...conditions, { ...newCondition(type, status, reason, message, now) }], true];
}
