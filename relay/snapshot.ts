/**
 * Builds the `ReconcileRequest` for one parent key from the informer caches (pure over
 * the cache views): the parent, its children of every declared kind, the objects its
 * spec references, and the triggers.
 */
import { kindKey, splitKey, type ControllerManifest, type KubeObject, type ReconcileRequest, type Trigger, type Watch } from "../protocol/index.ts";
import { valuesAt } from "./watch/mapping.ts";

/** What the builder reads from a cache. */
export interface CacheView {
  get(namespace: string | undefined, name: string): KubeObject | undefined;
  list(namespace?: string): KubeObject[];
  ownedBy(uid: string): KubeObject[];
  onNode(node: string): KubeObject[];
}

/** The snapshot of `key` for a snapshot-delivery controller. */
export function buildSnapshot(controller: ControllerManifest, key: string, view: (watch: Watch) => CacheView | undefined, triggers: readonly Trigger[], now: Date): ReconcileRequest {
  const { namespace, name } = splitKey(key);
  const parentType = controller.parent;
  const parentWatch = controller.watches.find((w) => w.mapping.by === "self");
  const parent = (parentWatch && view(parentWatch)?.get(namespace, name)) ?? null;
  const parentKind = parentType ? kindKey(parentType) : undefined;
  const uid = parent?.metadata.uid ?? triggers.find((t) => t.kind === parentKind && t.object.metadata.name === name)?.object.metadata.uid;
  const children: Record<string, KubeObject[]> = {};
  const related: Record<string, KubeObject[]> = {};
  for (const watch of controller.watches) {
    const cache = view(watch);
    const kind = kindKey(watch);
    const sameKind = (o: KubeObject): boolean => o.kind === undefined || o.kind === watch.kind;
    switch (watch.mapping.by) {
      case "self":
        break;
      case "owner": {
        const ownerKind = watch.mapping.owner.kind;
        const owned = uid && cache ? cache.ownedBy(uid).filter((o) => sameKind(o) && o.metadata.ownerReferences?.some((r) => r.uid === uid && r.kind === ownerKind)) : [];
        children[kind] = [...(children[kind] ?? []), ...owned];
        break;
      }
      case "label": {
        const label = watch.mapping.label;
        children[kind] = [...(children[kind] ?? []), ...(cache?.list(namespace).filter((o) => o.metadata.labels?.[label] === name) ?? [])];
        break;
      }
      case "node":
        children[kind] = [...(children[kind] ?? []), ...(cache?.onNode(name) ?? [])];
        break;
      case "reference": {
        const names = parent ? [...new Set(watch.mapping.paths.flatMap((path) => valuesAt(parent, path)))] : [];
        const found = names.map((n) => cache?.get(namespace, n)).filter((o): o is KubeObject => o !== undefined);
        related[kind] = [...(related[kind] ?? []), ...found];
        break;
      }
    }
  }
  return { controller: controller.name, key, parent, children, related, triggers: [...triggers], now: now.toISOString() };
}
