import { z } from "zod";
import { KubeObject, NamespaceName, ObjectRef } from "./objects.ts";
import { Timestamp } from "./reconcile.ts";

/**
 * Opaque to the relay: names the RecreationLedger claim an action spent. When the action
 * was not applied (a transient failure interrupted the plan at it or before it), the
 * relay hands the token back (`POST /v1/claims/release`), so the claim guards only an
 * action that happened (ADR 0001, amendment "claim release").
 */
export const ClaimToken = z.object({
  namespace: NamespaceName.optional(),
  key: z.string().min(1).max(1024),
});
export type ClaimToken = z.infer<typeof ClaimToken>;

/** The optional claim token every action may carry. */
const claimed = { release: ClaimToken.optional() };

/** Create an object (metadata.name or generateName set). */
export const CreateAction = z.object({
  type: z.literal("create"),
  ...claimed,
  object: KubeObject,
  /**
   * An answer AlreadyExists counts as applied: the name is derived from the request that
   * creates it, so the object there is this request's, made by an earlier attempt whose
   * creation the relay's cache had not seen yet (an API's retry; issue 28).
   */
  ifAbsent: z.literal(true).optional(),
});

/** JSON merge patch of an object, optionally only at one resourceVersion. */
export const PatchAction = z.object({
  type: z.literal("patch"),
  ...claimed,
  target: ObjectRef,
  patch: z.record(z.string(), z.unknown()),
  resourceVersion: z.string().min(1).optional(),
});

/** Delete an object, only if it is still the incarnation (uid) / version named. */
export const DeleteAction = z.object({
  type: z.literal("delete"),
  ...claimed,
  target: ObjectRef,
  preconditions: z
    .object({ uid: z.string().min(1).optional(), resourceVersion: z.string().min(1).optional() })
    .optional(),
  propagationPolicy: z.enum(["Background", "Foreground", "Orphan"]).optional(),
  /**
   * Delete the root of the target's owners instead: the relay follows controller
   * ownerReferences (else the first one) up from the target, at most
   * {@link MAX_OWNER_DEPTH} levels, and deletes the last owner it finds (the target itself
   * when it has none), as a deadline ends a Job's pods by deleting the Job. Each kind on
   * the way must be one the controller may read, and the root's one it may write.
   */
  root: z.boolean().optional(),
});

/** How many ownerReferences a `root` delete follows up at most. */
export const MAX_OWNER_DEPTH = 8;

/** Bind a pod to a node (`pods/binding`). */
export const BindAction = z.object({
  type: z.literal("bind"),
  ...claimed,
  pod: z.object({ namespace: z.string().min(1), name: z.string().min(1), uid: z.string().min(1).optional() }),
  node: z.string().min(1),
});

/** Merge-patch the status subresource of any object. */
export const StatusAction = z.object({
  type: z.literal("status"),
  ...claimed,
  target: ObjectRef,
  status: z.record(z.string(), z.unknown()),
  resourceVersion: z.string().min(1).optional(),
});

/** Record a Kubernetes Event on an object. */
export const EventAction = z.object({
  type: z.literal("event"),
  ...claimed,
  target: ObjectRef,
  eventType: z.enum(["Normal", "Warning"]),
  reason: z.string().min(1).max(128),
  message: z.string().max(1024),
  /**
   * Recorded only if the action just before it in the plan was applied: a
   * `SuccessfulCreate` that must not be told of a create the API server refused (the
   * relay records that one as `FailedCreate`).
   */
  ifPreviousApplied: z.boolean().optional(),
});

/** One step of a plan. Nothing else is allowed on the wire. */
export const Action = z.discriminatedUnion("type", [
  CreateAction,
  PatchAction,
  DeleteAction,
  BindAction,
  StatusAction,
  EventAction,
]);
export type Action = z.infer<typeof Action>;
export type CreateAction = z.infer<typeof CreateAction>;
export type PatchAction = z.infer<typeof PatchAction>;
export type DeleteAction = z.infer<typeof DeleteAction>;
export type BindAction = z.infer<typeof BindAction>;
export type StatusAction = z.infer<typeof StatusAction>;
export type EventAction = z.infer<typeof EventAction>;

/** What a reconcile returns: actions applied in order, and when to look again. */
export const Plan = z.object({
  actions: z.array(Action),
  requeueAfterSeconds: z.number().positive().max(86_400).optional(),
  /**
   * Up to this many consecutive actions of one type (binds, creates, deletes, status
   * writes), each with the `ifPreviousApplied` Events right after it, are applied at once;
   * absent or 1: strictly in order. For plans whose actions do not depend on each other,
   * such as the binds of a scheduling pass.
   */
  concurrency: z.number().int().min(1).max(64).optional(),
});
export type Plan = z.infer<typeof Plan>;

/**
 * `POST /v1/claims/release`: the tokens of claimed actions that were not applied. `now`
 * (the relay's clock) keeps two releases of one token apart, so the second is not
 * refused as a replay of the first.
 */
export const ClaimRelease = z.object({ claims: z.array(ClaimToken).min(1).max(256), now: Timestamp });
export type ClaimRelease = z.infer<typeof ClaimRelease>;

/** The answer to a release: how many of the claims were still held. */
export const ClaimReleased = z.object({ released: z.number().int().nonnegative() });
export type ClaimReleased = z.infer<typeof ClaimReleased>;
