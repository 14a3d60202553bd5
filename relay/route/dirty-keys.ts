/**
 * Which parent keys of a snapshot controller a watched object's change makes dirty
 * (pure over the caches): its watch's mapping read both ways, for the state it has now
 * and the one it replaced (`protocol/snapshot/mapping.ts`).
 */
import type { ControllerManifest, KubeObject, Watch } from "../../protocol/index.ts";
import { parentKeys, type ParentsIn } from "../../protocol/snapshot/mapping.ts";

/** One watch of one snapshot controller, resolved once per manifest for the event path. */
export interface SnapshotRoute {
  readonly controller: ControllerManifest;
  readonly watch: Watch;
  /** The watch of the controller's parents (whose own status writes echo back on it). */
  readonly self: boolean;
  readonly parentNamespaced: boolean;
  /** The controller's parents with a value at a path (an index lookup of the parents' cache, for `reference` mappings). */
  readonly parents: ParentsIn;
}

/**
 * The parent keys a change makes dirty: those the object maps to now and those its
 * previous state mapped to. A child whose label (or owner) moves it from parent A to B
 * must wake A too, or A keeps counting a child it lost until the next full resync.
 */
export function dirtyKeys(route: Pick<SnapshotRoute, "watch" | "parentNamespaced" | "parents">, object: KubeObject, previous?: KubeObject): string[] {
  const keys = parentKeys(route.watch.mapping, object, route.parentNamespaced, route.parents);
  if (!previous) return keys;
  const before = parentKeys(route.watch.mapping, previous, route.parentNamespaced, route.parents).filter((key) => !keys.includes(key));
  return before.length === 0 ? keys : [...keys, ...before];
}

/** How long a change waits before its keys run: its watch's batch period, none for a deletion (unless the watch batches deletions too). */
export function batchMilliseconds(watch: Watch, type: "ADDED" | "MODIFIED" | "DELETED"): number {
  return type === "DELETED" && watch.batchDeletions !== true ? 0 : (watch.batchMilliseconds ?? 0);
}
