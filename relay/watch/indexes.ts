/**
 * The secondary indexes of one cache: by controller owner uid (for `owner` mappings),
 * and by the values at each field path a `field` mapping declares. Pure bookkeeping, fed
 * every add, update and delete by the cache.
 */
import { objectKey, valuesAt, type KubeObject } from "../../protocol/index.ts";
import { ObjectIndex } from "./object-index.ts";

function controllerOwnerUid(object: KubeObject): readonly string[] {
  const uid = object.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
  return uid ? [uid] : [];
}

/** Owner and field-path indexes of one cache. */
export class CacheIndexes {
  readonly #byOwner = new ObjectIndex(controllerOwnerUid);
  readonly #byField = new Map<string, ObjectIndex>();

  /**
   * Indexes exactly `paths` from now on. A path not indexed before is filled from
   * `current` (the cache's objects), as a manifest refresh may add it to a running cache.
   */
  indexFields(paths: Iterable<string>, current: () => readonly KubeObject[]): void {
    const wanted = new Set(paths);
    for (const path of this.#byField.keys()) if (!wanted.has(path)) this.#byField.delete(path);
    for (const path of wanted) {
      if (this.#byField.has(path)) continue;
      const index = new ObjectIndex((object) => valuesAt(object, path));
      for (const object of current()) index.update(objectKey(object.metadata), object);
      this.#byField.set(path, index);
    }
  }

  /** Re-files an object after an add or update, or removes it after a delete. */
  update(object: KubeObject, removed: boolean): void {
    const key = objectKey(object.metadata);
    const stored = removed ? undefined : object;
    this.#byOwner.update(key, stored);
    for (const index of this.#byField.values()) index.update(key, stored);
  }

  /** Objects whose controller ownerReference has this uid. */
  ownedBy(uid: string): KubeObject[] {
    return this.#byOwner.get(uid);
  }

  /** Objects with `value` at `path`; `undefined` when the path is not indexed. */
  withField(path: string, value: string): KubeObject[] | undefined {
    return this.#byField.get(path)?.get(value);
  }
}
