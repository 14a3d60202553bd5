/** Test support: event batches and a scheduler over an in-memory (or file) SQLite database. */
import type { Action, BindAction, EventAction } from "../../../../../protocol/plan.ts";
import type { EventBatch, WatchEvent } from "../../../../../protocol/reconcile.ts";
import type { KubeObject } from "../../../../../protocol/objects.ts";

/** The tests' epoch: 2026-01-01T00:00:00Z (as `created` in core/testing/build.ts). */
export const T0 = Date.UTC(2026, 0, 1);

/** `seconds` after T0, ms. */
export function at(seconds: number): number {
  return T0 + seconds * 1000;
}

/** A watch event of a raw Pod or Node. */
export function event(type: WatchEvent["type"], object: Record<string, unknown>, initial = false): WatchEvent {
  return { type, kind: object["kind"] === "Node" ? "Node.v1" : "Pod.v1", object: object as KubeObject, initial };
}

/** The Scheduled Event the relay recorded for raw pod `pod`, as its watch of such Events delivers it. */
export function scheduled(pod: Record<string, unknown>): WatchEvent {
  const { uid, name, namespace } = pod["metadata"] as { uid: string; name: string; namespace: string };
  const object = { apiVersion: "v1", kind: "Event", metadata: { name: `${name}.scheduled`, namespace, uid: `event-${uid}` }, involvedObject: { kind: "Pod", uid }, reason: "Scheduled" } as KubeObject;
  return { type: "ADDED", kind: "Event.v1", object, initial: false };
}

/** A batch at `seconds` after T0. */
export function batch(events: WatchEvent[], seconds = 0, flags: { relist?: boolean; partialList?: boolean } = {}): EventBatch {
  return { controller: "gang", relist: flags.relist ?? false, partialList: flags.partialList ?? false, events, now: new Date(at(seconds)).toISOString() };
}

/** A complete list (one batch) of `objects`. */
export function list(objects: Record<string, unknown>[], seconds = 0): EventBatch {
  return batch(objects.map((object) => event("ADDED", object, true)), seconds, { relist: true });
}

/** The binds of a plan as `name→node`, sorted. */
export function binds(actions: readonly Action[]): string[] {
  return actions.filter((a): a is BindAction => a.type === "bind").map((a) => `${a.pod.name}→${a.node}`).sort();
}

/** The events of a plan as `reason name`, in order. */
export function events(actions: readonly Action[]): string[] {
  return actions.filter((a): a is EventAction => a.type === "event").map((a) => `${a.eventType} ${a.reason} ${a.target.name}`);
}

/** A raw object with `patch` merged into it (shallow per top-level field). */
export function with_(object: Record<string, unknown>, patch: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...object };
  for (const [key, value] of Object.entries(patch)) out[key] = { ...(object[key] as Record<string, unknown>), ...value };
  return out;
}
