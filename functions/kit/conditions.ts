import { z } from "zod";

/** A status condition as Kubernetes kinds write it; edgeloop keeps exactly one per type. */
export const Condition = z.object({
  type: z.string().min(1),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastHeartbeatTime: z.string().optional(),
  lastProbeTime: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});
export type Condition = z.infer<typeof Condition>;

/** What a reconcile wants a condition to say. */
export interface ConditionUpdate {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
}

/** Which heartbeat field a kind uses (JI: lastHeartbeatTime, FL: lastProbeTime). */
export type HeartbeatField = "lastHeartbeatTime" | "lastProbeTime";

/**
 * Sets one condition, keeping exactly one per type (a list upstream grew with duplicates
 * collapses to the last of each type). Times move only when something changed, so an
 * unchanged reconcile writes no status.
 */
export function setCondition(conditions: readonly Condition[], update: ConditionUpdate, now: string, heartbeat: HeartbeatField): Condition[] {
  const unique = uniqueByType(conditions);
  const existing = unique.find((c) => c.type === update.type);
  if (existing && existing.status === update.status && existing.reason === update.reason && existing.message === update.message) {
    return unique;
  }
  const next: Condition = {
    ...existing,
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message,
    [heartbeat]: now,
    lastTransitionTime: existing && existing.status === update.status ? (existing.lastTransitionTime ?? now) : now,
  };
  return existing ? unique.map((c) => (c.type === update.type ? next : c)) : [...unique, next];
}

/**
 * Makes `active` the one current condition among `types`: it is set as given, and every
 * other condition of those types already present is set False with `active`'s reason and
 * message, so no stale condition still tells what is no longer so (a Running service whose
 * Pending condition kept saying "waiting for cloud worker"). Their lastTransitionTime
 * still tells when each stopped being True.
 */
export function setExclusive(
  conditions: readonly Condition[],
  active: ConditionUpdate,
  types: readonly string[],
  now: string,
  heartbeat: HeartbeatField,
): Condition[] {
  let out = setCondition(conditions, active, now, heartbeat);
  for (const type of types) {
    if (type === active.type || !out.some((c) => c.type === type)) continue;
    out = setCondition(out, { type, status: "False", reason: active.reason, message: active.message }, now, heartbeat);
  }
  return out;
}

/** One condition per type, the last of each type winning, in first-seen order. */
export function uniqueByType(conditions: readonly Condition[]): Condition[] {
  const last = new Map<string, Condition>();
  for (const condition of conditions) last.set(condition.type, condition);
  return [...last.values()];
}
