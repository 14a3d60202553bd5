/**
 * The one reading of a watch's mapping (pure over the cache views), both ways:
 * the parent keys a watched object makes dirty, and the objects of a watch that belong in
 * the snapshot of one parent key. The two must agree: an object is in a parent's snapshot
 * exactly when it makes that parent dirty.
 */
import { objectKey, parentKey, valuesAt, type ControllerManifest, type KubeObject, type Mapping, type Watch } from "../index.ts";
import { controllerOfType } from "../kube/owner.ts";
import type { CacheView } from "./caches.ts";

/** The parent a snapshot is built for. */
export interface SnapshotParent {
  readonly key: string;
  readonly namespace: string | undefined;
  readonly name: string;
  /** The parent's uid: from the cache, else from a trigger (a deleted parent). */
  readonly uid: string | undefined;
  readonly object: KubeObject | null;
  /** Whether the parent kind is namespaced (the controller's `self` watch says). */
  readonly namespaced: boolean;
}

/**
 * A controller's parents in `namespace` (any namespace when `undefined`) with `value` at
 * the field path `path`: what a `reference` mapping looks up, by an index of the parents'
 * cache (the relay indexes every path a controller's `reference` mappings name).
 */
export type ParentsIn = (namespace: string | undefined, path: string, value: string) => readonly KubeObject[];

/** The watch of a controller's parents (`self`), if it has one. */
export function selfWatch(controller: ControllerManifest): Watch | undefined {
  return controller.watches.find((w) => w.mapping.by === "self");
}

/**
 * Whether a controller's parents are namespaced, as its `self` watch says. Without one,
 * namespaced: parents are then keyed `namespace/name`, as they always were.
 */
export function parentIsNamespaced(controller: ControllerManifest): boolean {
  return selfWatch(controller)?.namespaced ?? true;
}

/** The parent keys `object` makes dirty. */
export function parentKeys(mapping: Mapping, object: KubeObject, parentNamespaced: boolean, parents: ParentsIn): string[] {
  const namespace = object.metadata.namespace;
  switch (mapping.by) {
    case "self":
      return [objectKey(object.metadata)];
    case "owner": {
      const owner = controllerOwner(mapping, object);
      return owner ? [parentKey(owner, namespace, parentNamespaced)] : [];
    }
    case "label": {
      const value = object.metadata.labels?.[mapping.label];
      return value ? [parentKey(value, namespace, parentNamespaced)] : [];
    }
    case "field":
      return fieldKeys(valuesAt(object, mapping.path), namespace, parentNamespaced);
    case "reference":
      return referencingParents(mapping.paths, object, parents);
    case "none":
      return [];
  }
}

/** The objects of `watch` in the snapshot of `parent` (none for `self`: the parent is read apart). */
export function snapshotObjects(watch: Watch, cache: CacheView | undefined, parent: SnapshotParent): KubeObject[] {
  if (!cache) return [];
  const mapping = watch.mapping;
  switch (mapping.by) {
    case "self":
      return [];
    case "owner":
      return parent.uid ? ownedChildren(mapping, watch.kind, cache, parent.uid) : [];
    case "label":
      return cache.withLabel(mapping.label, parent.name).filter((o) => inScope(o, parent));
    case "field":
      return cache.withField(mapping.path, parent.name).filter((o) => inScope(o, parent));
    case "reference":
      return referencedObjects(mapping.paths, cache, parent);
    case "none":
      return [];
  }
}

function controllerOwner(mapping: Extract<Mapping, { by: "owner" }>, object: KubeObject): string | undefined {
  return controllerOfType(object, mapping.owner)?.name;
}

function fieldKeys(names: readonly string[], namespace: string | undefined, parentNamespaced: boolean): string[] {
  const keys = names.map((name) => parentKey(name, namespace, parentNamespaced));
  // One key once: an EndpointSlice names a node once per endpoint on it.
  return keys.length < 2 ? keys : [...new Set(keys)];
}

function referencingParents(paths: readonly string[], object: KubeObject, parents: ParentsIn): string[] {
  const namespace = object.metadata.namespace;
  const name = object.metadata.name ?? "";
  const keys = new Set<string>();
  for (const path of paths) {
    // Checked again: a lookup that is a scan, or an index of another namespace's parents, may return more.
    for (const parent of parents(namespace, path, name)) if (parent.metadata.namespace === namespace && valuesAt(parent, path).includes(name)) keys.add(objectKey(parent.metadata));
  }
  return [...keys];
}

/**
 * Whether a child found by name belongs to `parent`: the parent of a namespaced kind is
 * in the child's namespace, so only children there count; a cluster-scoped parent is
 * named from any namespace.
 */
function inScope(child: KubeObject, parent: SnapshotParent): boolean {
  return !parent.namespaced || child.metadata.namespace === parent.namespace;
}

function ownedChildren(mapping: Extract<Mapping, { by: "owner" }>, kind: string, cache: CacheView, uid: string): KubeObject[] {
  // The cache fills in `kind` of list items; a view that did not leaves it out.
  return cache.ownedBy(uid).filter((o) => (o.kind === undefined || o.kind === kind) && controllerOfType(o, mapping.owner)?.uid === uid);
}

function referencedObjects(paths: readonly string[], cache: CacheView, parent: SnapshotParent): KubeObject[] {
  if (!parent.object) return [];
  const object = parent.object;
  const names = new Set(paths.flatMap((path) => valuesAt(object, path)));
  return [...names].map((name) => cache.get(parent.namespace, name)).filter((o): o is KubeObject => o !== undefined);
}
