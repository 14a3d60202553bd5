/**
 * When a Job has failed for good, and how long it waits before replacing a failed pod:
 * the upstream Job controller's backoff limit (failed pods, or container restarts under
 * restartPolicy OnFailure) and its exponential pod-failure backoff (10 s doubling, at most
 * 10 min, counted from the last failure since the last success).
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { arr, obj, type Obj } from "../runtime.ts";

/** The base pod-failure backoff (DefaultJobPodFailureBackOff). */
export const POD_FAILURE_BACKOFF_MS = 10_000;
/** The largest pod-failure backoff (MaxJobPodFailureBackOff). */
export const MAX_POD_FAILURE_BACKOFF_MS = 600_000;

/** Failures since the last success and when the last one happened (ms since epoch). */
export interface BackoffRecord {
  readonly failuresAfterLastSuccess: number;
  readonly lastFailureTime: number | undefined;
}

export const NO_FAILURES: BackoffRecord = { failuresAfterLastSuccess: 0, lastFailureTime: undefined };

/** The record after newly counted pods, given their finish times (ms). */
export function nextBackoffRecord(old: BackoffRecord, succeededAt: readonly number[], failedAt: readonly number[]): BackoffRecord {
  const failed = [...failedAt].sort((a, b) => a - b);
  if (succeededAt.length === 0) {
    if (failed.length === 0) return old;
    return { failuresAfterLastSuccess: old.failuresAfterLastSuccess + failed.length, lastFailureTime: failed[failed.length - 1] };
  }
  const lastSuccess = Math.max(...succeededAt);
  const after = failed.filter((t) => t > lastSuccess);
  return after.length === 0 ? NO_FAILURES : { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] };
}

/** Milliseconds left before a replacement pod may be created (0: now). */
export function remainingBackoffMs(record: BackoffRecord, now: number, baseMs = POD_FAILURE_BACKOFF_MS, maxMs = MAX_POD_FAILURE_BACKOFF_MS): number {
  if (record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  let backoff = baseMs;
  for (let i = 1; i < record.failuresAfterLastSuccess && backoff < maxMs; i++) backoff = Math.min(maxMs, backoff * 2);
  const elapsed = now - record.lastFailureTime;
  return elapsed >= backoff ? 0 : backoff - elapsed;
}

/** When a pod finished: Ready=False of a terminal pod, else its containers' last finish, else its deletion, else now. */
export function finishedAt(pod: KubeObject, now: number): number {
  const status = obj((pod as Obj).status);
  if (status.phase === "Succeeded" || status.phase === "Failed") {
    const ready = arr(status.conditions).find((c) => c.type === "Ready" && c.status === "False");
    const at = Date.parse(String(ready?.lastTransitionTime ?? ""));
    if (Number.isFinite(at)) return at;
  }
  const finishes = arr(status.containerStatuses)
    .map((c) => Date.parse(String(obj(obj(c.state).terminated).finishedAt ?? "")))
    .filter(Number.isFinite);
  if (finishes.length > 0) return Math.max(...finishes);
  const deleted = Date.parse(pod.metadata.deletionTimestamp ?? "");
  return Number.isFinite(deleted) ? deleted : now;
}

/** Under restartPolicy OnFailure, whether the running pods' container restarts reach the backoff limit. */
export function pastBackoffLimitOnFailure(restartPolicy: string, backoffLimit: number, pods: readonly KubeObject[]): boolean {
  if (restartPolicy !== "OnFailure") return false;
  let restarts = 0;
  for (const pod of pods) {
    const status = obj((pod as Obj).status);
    if (status.phase !== "Running" && status.phase !== "Pending") continue;
    for (const c of [...arr(status.initContainerStatuses), ...arr(status.containerStatuses)]) restarts += Number(c.restartCount ?? 0) || 0;
  }
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}

/** Whether the Job has been active (since `startTime`) for `activeDeadlineSeconds` or longer; never while suspended. */
export function pastActiveDeadline(activeDeadlineSeconds: number | undefined, startTime: unknown, suspended: boolean, now: number): boolean {
  return deadlineRemainingMs(activeDeadlineSeconds, startTime, suspended, now) === 0;
}

/** Milliseconds until the active deadline (0 when past it), undefined when none applies. */
export function deadlineRemainingMs(activeDeadlineSeconds: number | undefined, startTime: unknown, suspended: boolean, now: number): number | undefined {
  if (activeDeadlineSeconds === undefined || suspended || typeof startTime !== "string") return undefined;
  const start = Date.parse(startTime);
  if (!Number.isFinite(start)) return undefined;
  return Math.max(0, start + activeDeadlineSeconds * 1000 - now);
}
