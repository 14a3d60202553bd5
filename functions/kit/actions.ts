import type { Claim, Decided } from "./controller.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { refOf } from "../../protocol/index.ts";
import { deepEqual } from "./merge-patch.ts";

/** How long a recreation claim holds (upstream's recreated-pods record: 5 s). */
export const CLAIM_TTL_SECONDS = 5;

/** A Kubernetes Event on `parent`; with a claim, it is recorded at most once per claim. */
export function eventOn(parent: KubeObject, eventType: "Normal" | "Warning", reason: string, message: string, claim?: Claim): Decided {
  const action: Decided = { type: "event", target: refOf(parent), eventType, reason, message: message.slice(0, 1024) };
  return claim ? { ...action, claim: { key: `${claim.key}#event`, ttlSeconds: claim.ttlSeconds } } : action;
}

/**
 * An Event telling of the action just before it (`SuccessfulCreate` after a create): the
 * relay records it only if that action was applied, and records its own `FailedCreate`
 * or `FailedDelete` otherwise.
 */
export function outcomeEvent(parent: KubeObject, reason: string, message: string, claim?: Claim): Decided {
  const event = eventOn(parent, "Normal", reason, message, claim);
  return event.type === "event" ? { ...event, ifPreviousApplied: true } : event;
}

/** A create action, guarded by a claim when it replaces a deleted object. */
export function createOf(object: KubeObject, claim?: Claim): Decided {
  return claim ? { type: "create", object, claim } : { type: "create", object };
}

/** Delete exactly this incarnation (uid precondition), never a same-named successor. */
export function deleteOf(object: KubeObject): Decided {
  const uid = object.metadata.uid;
  return { type: "delete", target: refOf(object), ...(uid ? { preconditions: { uid } } : {}), propagationPolicy: "Background" };
}

/**
 * A status action carrying `next`, or nothing when every field of `next` already has that
 * value in `current` (an unchanged reconcile must not write, or it would wake itself up).
 */
export function statusIfChanged(parent: KubeObject, current: Record<string, unknown>, next: Record<string, unknown>): Decided[] {
  const changed = Object.entries(next).some(([key, value]) => !deepEqual(current[key] ?? null, value ?? null));
  if (!changed) return [];
  return [{ type: "status", target: refOf(parent), status: next }];
}

/** The `status` of an object as a plain record. */
export function statusOf(object: KubeObject): Record<string, unknown> {
  const status = object["status"];
  return typeof status === "object" && status !== null && !Array.isArray(status) ? (status as Record<string, unknown>) : {};
}
