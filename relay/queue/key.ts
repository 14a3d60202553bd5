/**
 * Work queue keys: `controller|parent key` for a snapshot controller's parent, and
 * `controller|*events*` for an events controller's pending batch.
 */

/** The parent key standing for an events controller's buffered events. */
export const EVENTS_KEY = "*events*";

/** The queue key of one controller's parent key (or {@link EVENTS_KEY}). */
export function queueKey(controller: string, key: string): string {
  return `${controller}|${key}`;
}

/** Splits a queue key into controller name and parent key. */
export function splitQueueKey(queued: string): { controller: string; key: string } {
  const bar = queued.indexOf("|");
  return { controller: queued.slice(0, bar), key: queued.slice(bar + 1) };
}
