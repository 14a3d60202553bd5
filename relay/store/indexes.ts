/**
 * The secondary indexes of one cache: by controller owner uid (for `owner` mappings), by
 * the values at each field path a `field` mapping declares (or a `reference` mapping
 * reads of the parents), and by the value of each label a `label` mapping reads. Pure
 * bookkeeping, fed every add, update and delete by the cache.
 */
import { objectKey, valuesAt, type KubeObject } from "../../protocol/index.ts";
import { controllerOf } from "../../protocol/kube/owner.ts";
import { ObjectIndex } from "./object-index.ts";

function controllerOwnerUid(object: KubeObject): readonly string[] {
  const uid = controllerOf(object)?.uid;
  return uid ? [uid] : [];
}

/** Owner, field-path and label indexes of one cache. */
export class CacheIndexes {
  readonly #byOwner = new ObjectIndex(controllerOwnerUid);
  readonly #byField = new Map<string, ObjectIndex>();
  readonly #byLabel = new Map<string, ObjectIndex>();

  /**
   * Indexes exactly `paths` from now on. A path not indexed before is filled from
   * `current` (the cache's objects), as a manifest refresh may add it to a running cache.
   */
  indexFields(paths: Iterable<string>, current: () => readonly KubeObject[]): void {
    reindex(this.#byField, paths, (path) => (object) => valuesAt(object, path), current);
  }

  /** Indexes exactly these label keys from now on, as {@link indexFields} does paths. */
  indexLabels(labels: Iterable<string>, current: () => readonly KubeObject[]): void {
    reindex(this.#byLabel, labels, (label) => (object) => labelValue(object, label), current);
  }

  /** Re-files an object after an add or update, or removes it after a delete. */
  update(object: KubeObject, removed: boolean): void {
    const key = objectKey(object.metadata);
    const stored = removed ? undefined : object;
    this.#byOwner.update(key, stored);
    for (const index of this.#byField.values()) index.update(key, stored);
    for (const index of this.#byLabel.values()) index.update(key, stored);
  }

  /** Objects whose controller ownerReference has this uid. */
  ownedBy(uid: string): KubeObject[] {
    return this.#byOwner.get(uid);
  }

  /** Objects with `value` at `path`; `undefined` when the path is not indexed. */
  withField(path: string, value: string): KubeObject[] | undefined {
    return this.#byField.get(path)?.get(value);
  }

  /** Objects whose label `label` is `value`; `undefined` when the label is not indexed. */
  withLabel(label: string, value: string): KubeObject[] | undefined {
    return this.#byLabel.get(label)?.get(value);
  }
}

function labelValue(object: KubeObject, label: string): readonly string[] {
  const value = object.metadata.labels?.[label];
  return value === undefined ? [] : [value];
}

/**
 * Keeps exactly the indexes named in `names`: drops the others, and creates a missing one
 * filled from `current` (the cache's objects), as a manifest refresh may add it to a running cache.
 */
function reindex(indexes: Map<string, ObjectIndex>, names: Iterable<string>, valuesOf: (name: string) => (object: KubeObject) => readonly string[], current: () => readonly KubeObject[]): void {
  const wanted = new Set(names);
  for (const name of indexes.keys()) if (!wanted.has(name)) indexes.delete(name);
  for (const name of wanted) {
    if (indexes.has(name)) continue;
    const index = new ObjectIndex(valuesOf(name));
    for (const object of current()) index.update(objectKey(object.metadata), object);
    indexes.set(name, index);
  }
}
