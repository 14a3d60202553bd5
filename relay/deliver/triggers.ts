/**
 * What a snapshot carries of the watch events that made its key dirty. A deletion keeps
 * the object's last state: it is the only record of a child that is gone (controllers
 * replace it from that). Any other event names its object only (apiVersion, kind and
 * the metadata that identify and relate it): the snapshot's parent, children and related
 * objects hold the current state already, and a key batched or dirty again while in
 * flight gathered a full copy of its pods per event (half the bytes of a job's snapshot,
 * each signed, sent, verified and parsed by the Worker). Repeats of such an event (same
 * type, same object) are sent once, at the place of the last.
 */
import type { KubeObject, ObjectMeta, Trigger, Watch } from "../../protocol/index.ts";
import type { Cache } from "../store/cache.ts";

/**
 * A watch event as it waits in the work queue for its key's next snapshot: the change as
 * the cache holds it, with the watch and the cache it came through (a deletion is sent
 * cut to that watch's fields: `store/delivered-cuts.ts`).
 */
export interface QueuedTrigger extends Trigger {
  readonly watch: Watch;
  readonly cache: Cache;
}

/** The metadata a trigger that is not a deletion keeps. */
const KEPT_METADATA = ["name", "generateName", "namespace", "uid", "resourceVersion", "generation", "deletionTimestamp", "labels", "ownerReferences"] as const satisfies readonly (keyof ObjectMeta)[];

/**
 * The triggers as a snapshot sends them (see the file's comment), each a new protocol
 * `Trigger`: a deletion with its last state as `lastState` gives it (default: as queued).
 * The input is not changed.
 */
export function compactTriggers<T extends Trigger>(triggers: readonly T[], lastState: (deletion: T) => KubeObject = (deletion) => deletion.object): Trigger[] {
  return latestTriggers(triggers).map((trigger) => ({ type: trigger.type, kind: trigger.kind, object: trigger.type === "DELETED" ? lastState(trigger) : stub(trigger.object) }));
}

/**
 * The triggers a snapshot will send, as queued: every deletion, and of the other events
 * of one object and type only the last, in their order. What a key gathers while it waits
 * (a Worker away for minutes, pods changing meanwhile) stays bounded by the objects it
 * relates, not the events (the work queue compacts with it).
 */
export function latestTriggers<T extends Trigger>(triggers: readonly T[]): T[] {
  const last = new Map<string, number>();
  triggers.forEach((trigger, index) => {
    if (trigger.type !== "DELETED") last.set(identity(trigger), index);
  });
  return triggers.filter((trigger, index) => trigger.type === "DELETED" || last.get(identity(trigger)) === index);
}

/** One event of one object: its type, kind and uid (or namespace and name without one). */
function identity(trigger: Trigger): string {
  const { uid, namespace, name } = trigger.object.metadata;
  // NUL cannot appear in a kind, a uid nor a name: the parts cannot run into each other.
  return `${trigger.type}\u0000${trigger.kind}\u0000${uid ?? `${namespace ?? ""}/${name ?? ""}`}`;
}

/** The object reduced to what names and relates it. */
function stub(object: KubeObject): KubeObject {
  const metadata: Record<string, unknown> = {};
  for (const field of KEPT_METADATA) if (object.metadata[field] !== undefined) metadata[field] = object.metadata[field];
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: metadata as ObjectMeta };
}
