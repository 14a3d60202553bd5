/**
 * One informer per kind (ADR 0016): a watch that selects by labels only, of a kind some
 * other watch lists without selectors, is served by that unfiltered cache through a view
 * holding only the objects its selector matches, instead of a list and watch of its own.
 * The API server serves one watch of the kind, not one per selector.
 */
import type { KubeObject, Watch } from "../../protocol/index.ts";
import { cacheId, type Cache } from "./cache.ts";
import { matchesLabelRequirements, parseLabelSelector, type LabelRequirement } from "../../protocol/kube/selectors.ts";

/** Whether `watch` lists its kind without selectors. */
function unselected(watch: Watch): boolean {
  return !watch.labelSelector && !watch.fieldSelector;
}

/**
 * The id of the cache serving `watch` among `watches` (the manifest's): the unfiltered
 * cache of its kind when it selects by labels only and one exists, its own otherwise.
 */
export function servingCacheId(watch: Watch, watches: readonly Watch[]): string {
  if (!watch.labelSelector || watch.fieldSelector) return cacheId(watch);
  const unfiltered = watches.find((w) => w.kind === watch.kind && w.apiVersion === watch.apiVersion && unselected(w));
  return unfiltered ? cacheId(unfiltered) : cacheId(watch);
}

/** The objects of a shared cache a label-selected watch sees, with the reads a cache serves (mapping's `CacheView`). */
export class SelectedView {
  readonly cache: Cache;
  readonly labelSelector: string;
  readonly #requirements: readonly LabelRequirement[];

  constructor(cache: Cache, labelSelector: string) {
    this.cache = cache;
    this.labelSelector = labelSelector;
    this.#requirements = parseLabelSelector(labelSelector);
  }

  /** Whether the view holds `object`. */
  selects(object: KubeObject): boolean {
    return matchesLabelRequirements(object.metadata.labels, this.#requirements);
  }

  get namespaced(): boolean {
    return this.cache.namespaced;
  }

  get synced(): boolean {
    return this.cache.synced;
  }

  trimmed(object: KubeObject): boolean {
    return this.cache.trimmed(object);
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    const object = this.cache.get(namespace, name);
    return object && this.selects(object) ? object : undefined;
  }

  list(namespace?: string): KubeObject[] {
    return this.cache.list(namespace).filter((o) => this.selects(o));
  }

  ownedBy(uid: string): KubeObject[] {
    return this.cache.ownedBy(uid).filter((o) => this.selects(o));
  }

  withField(path: string, value: string): KubeObject[] {
    return this.cache.withField(path, value).filter((o) => this.selects(o));
  }

  withLabel(label: string, value: string): KubeObject[] {
    return this.cache.withLabel(label, value).filter((o) => this.selects(o));
  }
}
