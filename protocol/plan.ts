import { z } from "zod";
import { KubeObject, ObjectRef } from "./objects.ts";

/** Create an object (metadata.name or generateName set). */
export const CreateAction = z.object({
  type: z.literal("create"),
  object: KubeObject,
});

/** JSON merge patch of an object, optionally only at one resourceVersion. */
export const PatchAction = z.object({
  type: z.literal("patch"),
  target: ObjectRef,
  patch: z.record(z.string(), z.unknown()),
  resourceVersion: z.string().min(1).optional(),
});

/** Delete an object, only if it is still the incarnation (uid) / version named. */
export const DeleteAction = z.object({
  type: z.literal("delete"),
  target: ObjectRef,
  preconditions: z
    .object({ uid: z.string().min(1).optional(), resourceVersion: z.string().min(1).optional() })
    .optional(),
  propagationPolicy: z.enum(["Background", "Foreground", "Orphan"]).optional(),
});

/** Bind a pod to a node (`pods/binding`). */
export const BindAction = z.object({
  type: z.literal("bind"),
  pod: z.object({ namespace: z.string().min(1), name: z.string().min(1), uid: z.string().min(1).optional() }),
  node: z.string().min(1),
});

/** Merge-patch the status subresource of any object. */
export const StatusAction = z.object({
  type: z.literal("status"),
  target: ObjectRef,
  status: z.record(z.string(), z.unknown()),
  resourceVersion: z.string().min(1).optional(),
});

/** Record a Kubernetes Event on an object. */
export const EventAction = z.object({
  type: z.literal("event"),
  target: ObjectRef,
  eventType: z.enum(["Normal", "Warning"]),
  reason: z.string().min(1).max(128),
  message: z.string().max(1024),
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
});
export type Plan = z.infer<typeof Plan>;
