import { z } from "zod";
import { KindKey, KubeObject, ObjectKey } from "./objects.ts";

/** Watch event types as the API server sends them. */
export const WatchEventType = z.enum(["ADDED", "MODIFIED", "DELETED"]);
export type WatchEventType = z.infer<typeof WatchEventType>;

/**
 * One event that made a key dirty. A DELETED object carries its last state; any other
 * only what names and relates it (apiVersion, kind, identifying metadata, labels, owners):
 * its state is in the snapshot. The relay sends each such event once
 * (`relay/deliver/triggers.ts`).
 */
export const Trigger = z.object({
  type: WatchEventType,
  kind: KindKey,
  object: KubeObject,
});
export type Trigger = z.infer<typeof Trigger>;

/** RFC 3339 time with an offset or `Z`. */
export const Timestamp = z.iso.datetime({ offset: true });

/**
 * `POST /v1/reconcile/{controller}`: what the relay saw of one parent key.
 * `children` and `related` hold every declared kind, possibly empty.
 */
export const ReconcileRequest = z.object({
  controller: z.string().min(1),
  key: ObjectKey,
  parent: KubeObject.nullable(),
  children: z.record(KindKey, z.array(KubeObject)),
  related: z.record(KindKey, z.array(KubeObject)).default({}),
  triggers: z.array(Trigger).default([]),
  now: Timestamp,
});
export type ReconcileRequest = z.infer<typeof ReconcileRequest>;

/** One raw watch event for an `events`-delivery controller. */
export const WatchEvent = z.object({
  type: WatchEventType,
  kind: KindKey,
  object: KubeObject,
  /** True for the ADDED events of the relay's initial list (and of a relist). */
  initial: z.boolean().default(false),
});
export type WatchEvent = z.infer<typeof WatchEvent>;

/** `POST /v1/events/{controller}`: ordered watch events of the controller's kinds. */
export const EventBatch = z.object({
  controller: z.string().min(1),
  /** Set when this batch starts a fresh initial list: state built from earlier batches is stale. */
  relist: z.boolean().default(false),
  /**
   * Set on every batch of a relist but its last (a list is sent in chunks the Worker can
   * read): the controller's view is incomplete until a batch without it, so it must not
   * act on what it has not seen yet (a scheduler must not place pods on half a cluster).
   */
  partialList: z.boolean().default(false),
  events: z.array(WatchEvent),
  now: Timestamp,
});
export type EventBatch = z.infer<typeof EventBatch>;
