/**
 * An in-memory cache for tests: what an informer cache serves (get, list, the owner and
 * field indexes, its scope), with objects put and removed by hand. The indexes are the
 * real ones the informer cache keeps, so a test moving objects exercises them.
 */
import { objectKey, type KubeObject } from "../../protocol/index.ts";
import type { CacheView, RelatedCache } from "../../protocol/snapshot/caches.ts";
import { CacheIndexes } from "../../relay/store/indexes.ts";

/** A cache filled by the test. */
export class FakeCache implements CacheView, RelatedCache {
  readonly namespaced: boolean;
  /** The namespace of every `list` call (`undefined`: all), to check how a lookup was made. */
  readonly listed: (string | undefined)[] = [];
  readonly #objects = new Map<string, KubeObject>();
  readonly #indexes = new CacheIndexes();

  constructor(namespaced: boolean, options: { readonly fieldPaths?: readonly string[]; readonly objects?: readonly KubeObject[] } = {}) {
    this.namespaced = namespaced;
    this.#indexes.indexFields(options.fieldPaths ?? [], () => []);
    for (const object of options.objects ?? []) this.put(object);
  }

  /** Adds or replaces an object, as an ADDED or MODIFIED event does. */
  put(object: KubeObject): this {
    this.#objects.set(objectKey(object.metadata), object);
    this.#indexes.update(object, false);
    return this;
  }

  /** Removes an object, as a DELETED event does. */
  remove(object: KubeObject): this {
    this.#objects.delete(objectKey(object.metadata));
    this.#indexes.update(object, true);
    return this;
  }

  /** Indexes these field paths from now on (filling new ones from what is held). */
  indexFields(paths: readonly string[]): void {
    this.#indexes.indexFields(paths, () => [...this.#objects.values()]);
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#objects.get(objectKey({ namespace, name }));
  }

  list(namespace?: string): KubeObject[] {
    this.listed.push(namespace);
    const all = [...this.#objects.values()];
    return namespace ? all.filter((o) => o.metadata.namespace === namespace) : all;
  }

  ownedBy(uid: string): KubeObject[] {
    return this.#indexes.ownedBy(uid);
  }

  withLabel(label: string, value: string): KubeObject[] {
    return [...this.#objects.values()].filter((o) => o.metadata.labels?.[label] === value);
  }

  withField(path: string, value: string): KubeObject[] {
    const indexed = this.#indexes.withField(path, value);
    if (!indexed) throw new Error(`field path ${path} is not indexed`);
    return indexed;
  }
}
