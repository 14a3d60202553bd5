/**
 * The fake cluster's objects of one watch or kind, read as the relay's caches serve them
 * (`protocol/snapshot/caches.ts`): by namespace and name, children by their controller
 * owner's uid, by a field path's values, by a label's value. What the relay answers from
 * its indexes this finds by scanning: the same objects, for a test's few.
 */
import { objectKey, valuesAt, type KubeObject } from "../../../protocol/index.ts";
import { controllerOf } from "../../../protocol/kube/owner.ts";
import type { CacheView, RelatedCache } from "../../../protocol/snapshot/caches.ts";

/** A read-only view of some of a fake cluster's objects (the stored objects themselves: a snapshot is cloned once built). */
export class StoreView implements CacheView, RelatedCache {
  readonly namespaced: boolean;
  readonly #objects: readonly KubeObject[];

  constructor(namespaced: boolean, objects: readonly KubeObject[]) {
    this.namespaced = namespaced;
    this.#objects = objects;
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    const key = objectKey({ namespace, name });
    return this.#objects.find((o) => objectKey(o.metadata) === key);
  }

  list(namespace?: string): KubeObject[] {
    return namespace ? this.#objects.filter((o) => o.metadata.namespace === namespace) : [...this.#objects];
  }

  /** Objects whose controller ownerReference has this uid (the relay's owner index keys by it alone). */
  ownedBy(uid: string): KubeObject[] {
    return this.#objects.filter((o) => controllerOf(o)?.uid === uid);
  }

  withField(path: string, value: string): KubeObject[] {
    return this.#objects.filter((o) => valuesAt(o, path).includes(value));
  }

  withLabel(label: string, value: string): KubeObject[] {
    return this.#objects.filter((o) => o.metadata.labels?.[label] === value);
  }
}
