/**
 * The work queue's keys, as typed values: one parent of a snapshot controller, or the
 * pending events batch of an events controller. Each carries its `id`, encoded here and
 * only here (the queue's maps are kept by it); nothing reads a key back from its id.
 */

/** One parent (its `namespace/name` key, or `name` when cluster-scoped) of a snapshot controller. */
export interface ParentQueueKey {
  readonly delivery: "snapshot";
  readonly controller: string;
  readonly parent: string;
  readonly id: string;
}

/** The buffered watch events of an events controller. */
export interface EventsQueueKey {
  readonly delivery: "events";
  readonly controller: string;
  readonly id: string;
}

/** A work queue key. */
export type QueueKey = ParentQueueKey | EventsQueueKey;

/** The key of one parent of `controller`. */
export function parentQueueKey(controller: string, parent: string): ParentQueueKey {
  return { delivery: "snapshot", controller, parent, id: `${controller}|${parent}` };
}

/** The key of `controller`'s buffered events (no parent key has a `*`). */
export function eventsQueueKey(controller: string): EventsQueueKey {
  return { delivery: "events", controller, id: `${controller}|*events*` };
}
