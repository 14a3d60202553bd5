/**
 * Builds the `ReconcileRequest` for one parent key from the caches (pure over the cache
 * views): the parent, then every other watch's objects in the part of the request its
 * mapping says (`./mapping.ts` finds them), each cut to the fields its watch declares
 * (`./fields.ts`), the controller's declared `related` objects narrowed to the parent
 * (`./related.ts`), and the triggers. The relay sends what this builds; the kit's fake
 * cluster builds its snapshots with it too.
 */
import { kindKey, objectKey, snapshotPart, splitKey, type ControllerManifest, type KubeObject, type ReconcileRequest, type Trigger, type Watch } from "../index.ts";
import type { CacheView, RelatedCaches, SnapshotCaches } from "./caches.ts";
import { DeliveredFields, WHOLE, fromCache } from "./fields.ts";
import { parentIsNamespaced, selfWatch, snapshotObjects, type SnapshotParent } from "./mapping.ts";
import { relatedObjects } from "./related.ts";

/** The snapshot of `key` for a snapshot-delivery controller, as the relay sends it (`fields`: the deliveries' projections, made once each). */
export function reconcileRequest(controller: ControllerManifest, key: string, caches: SnapshotCaches, triggers: readonly Trigger[], now: Date, fields: DeliveredFields = new DeliveredFields()): ReconcileRequest {
  const request = buildSnapshot(controller, key, (watch) => caches.forWatch(watch), triggers, now, fields);
  return withRelated(request, controller, (kind) => caches.unfiltered(kind));
}

/** The snapshot of `key` from its watches' caches alone: without the controller's declared `related` objects ({@link withRelated}). */
export function buildSnapshot(controller: ControllerManifest, key: string, view: (watch: Watch) => CacheView | undefined, triggers: readonly Trigger[], now: Date, fields: DeliveredFields = new DeliveredFields()): ReconcileRequest {
  const parent = snapshotParent(controller, key, view, triggers);
  const children: Record<string, KubeObject[]> = {};
  const related: Record<string, KubeObject[]> = {};
  for (const watch of controller.watches) {
    const part = snapshotPart(watch.mapping);
    if (part === "parent" || part === "none") continue;
    const into = part === "children" ? children : related;
    const kind = kindKey(watch);
    const cache = view(watch);
    const project = fromCache(fields.ofWatch(watch), cache);
    const objects = snapshotObjects(watch, cache, parent);
    // Each watch's own fields, not a whole object the shared cache keeps for another watch.
    const found = project === WHOLE ? objects : objects.map(project);
    // Every declared kind is present, empty or not: the Worker checks.
    const earlier = into[kind];
    into[kind] = earlier ? [...earlier, ...found] : found;
  }
  const self = selfWatch(controller);
  const parentObject = parent.object && self ? fromCache(fields.ofWatch(self), view(self))(parent.object) : parent.object;
  return { controller: controller.name, key, parent: parentObject, children, related, triggers: [...triggers], now: now.toISOString() };
}

/** The snapshot with the controller's declared `related` objects, narrowed to its parent, added. */
export function withRelated(request: ReconcileRequest, controller: ControllerManifest, caches: RelatedCaches): ReconcileRequest {
  if (controller.related.length === 0 || request.parent === null) return request;
  const found = relatedObjects(controller.related, { namespace: request.parent.metadata.namespace, root: { object: request.parent } }, caches);
  const related: Record<string, KubeObject[]> = { ...request.related };
  for (const [kind, objects] of Object.entries(found)) {
    const seen = new Set((related[kind] ?? []).map((object) => object.metadata.uid ?? objectKey(object.metadata)));
    related[kind] = [...(related[kind] ?? []), ...objects.filter((object) => !seen.has(object.metadata.uid ?? objectKey(object.metadata)))];
  }
  return { ...request, related };
}

/** The parent of `key`: from the cache, with its uid from a trigger when it is gone. */
function snapshotParent(controller: ControllerManifest, key: string, view: (watch: Watch) => CacheView | undefined, triggers: readonly Trigger[]): SnapshotParent {
  const { namespace, name } = splitKey(key);
  const self = selfWatch(controller);
  const object = (self && view(self)?.get(namespace, name)) ?? null;
  const parentKind = controller.parent ? kindKey(controller.parent) : undefined;
  const uid = object?.metadata.uid ?? triggers.find((t) => t.kind === parentKind && t.object.metadata.name === name)?.object.metadata.uid;
  return { key, namespace, name, uid, object, namespaced: parentIsNamespaced(controller) };
}
