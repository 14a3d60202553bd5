/**
 * The caches the manifest asks for: one cache per kind and selectors, however many
 * controllers watch it (a label-selected watch of a kind also listed unfiltered shares
 * that one cache, through a view: `./sharing.ts`), each keeping only the projection its
 * watches declare (`./projection.ts`), started and stopped as the manifest changes, each
 * indexing the field paths and labels its watches map by, and (a controller's parents) the paths its
 * controller's `reference` mappings read, so that a referenced object finds its parents
 * by an index lookup, not a scan of every parent.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { ControllerManifest, Manifest, TypeRef, Watch } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";
import { fieldsOf } from "../../protocol/snapshot/fields.ts";
import { selfWatch } from "../../protocol/snapshot/mapping.ts";
import type { InformerOptions, WatchReporter } from "../watch/informer.ts";
import { Cache, cacheId, type CacheSubscriber } from "./cache.ts";
import { Projection, type ProjectionRule } from "./projection.ts";
import { SelectedView, servingCacheId } from "./sharing.ts";

/** What one cache serves: a watch to create it from, the field paths to index, what it keeps of each object. */
interface Wanted {
  readonly watch: Watch;
  readonly fieldPaths: Set<string>;
  /** Label keys to index (those the `label` mappings of the watches sharing this cache read). */
  readonly labels: Set<string>;
  readonly rules: ProjectionRule[];
}

/**
 * What each cache keeps (ADR 0016): the union of the fields its watches declare; of the
 * objects a label-selected watch it serves matches, what that watch needs (a labelled worker
 * pod stays whole in the cache of every pod, the other pods are projected); and what it
 * indexes and filters by. The cache of a kind without selectors is also where `related`
 * objects come from: a watch of the kind with a field selector (a cache of its own) has
 * its needs kept there too, for every object, as the object cannot be told to match.
 */
function projectionRules(wanted: Map<string, Wanted>, watches: readonly Watch[]): void {
  for (const watch of watches) {
    const id = servingCacheId(watch, watches);
    const shared = id !== cacheId(watch);
    wanted.get(id)?.rules.push({ labelSelector: shared ? watch.labelSelector : undefined, fields: fieldsOf(watch) });
    const unfiltered = cacheId({ apiVersion: watch.apiVersion, kind: watch.kind });
    if (watch.fieldSelector && unfiltered !== id) wanted.get(unfiltered)?.rules.push({ fields: fieldsOf(watch) });
  }
  for (const entry of wanted.values()) {
    const filtered = entry.rules.some((rule) => rule.labelSelector !== undefined);
    const kept = [...entry.fieldPaths, ...(entry.labels.size > 0 || filtered ? ["metadata.labels"] : [])];
    if (kept.length > 0) entry.rules.push({ fields: kept });
  }
}

/** The projection rules as one comparable string. */
function signature(rules: readonly ProjectionRule[]): string {
  // Sorted by code unit (the default sort), not localeCompare: locale-free, and no ICU collator in the relay.
  return JSON.stringify(rules.map((r) => JSON.stringify([r.labelSelector ?? "", r.fields ? [...r.fields].sort() : null])).sort());
}

/** The id of the cache of a controller's parents (its `self` watch), if it has one. */
function parentsCache(controller: ControllerManifest): string | undefined {
  const self = selfWatch(controller);
  return self && cacheId(self);
}

/** The parent field paths a controller's `reference` mappings read (a referenced object's parents are looked up by them). */
export function referencePaths(controller: ControllerManifest): string[] {
  return controller.watches.flatMap((w) => (w.mapping.by === "reference" ? w.mapping.paths : []));
}

/** The caches of the manifest in use. */
export class Caches {
  readonly #kubeconfig: KubeConfig;
  readonly #client: KubeClient;
  #subscriber: CacheSubscriber | undefined;
  readonly #reporter: WatchReporter;
  readonly #caches = new Map<string, Cache>();
  /** The projection signature each running cache was started with. */
  readonly #projections = new Map<string, string>();
  /** The views of shared caches, by cache and label selector. */
  readonly #views = new Map<string, SelectedView>();

  readonly #options: InformerOptions;

  /** Each informer's reports go to `reporter`. */
  constructor(kubeconfig: KubeConfig, client: KubeClient, reporter: WatchReporter, options: InformerOptions = {}) {
    this.#kubeconfig = kubeconfig;
    this.#client = client;
    this.#reporter = reporter;
    this.#options = options;
  }

  /**
   * Sends every cache's changes to `subscriber` (the router), before any cache starts.
   * Not a constructor argument: the router reads these caches (a reference's parents, a
   * resync's list), so one of the two is made first.
   */
  subscribe(subscriber: CacheSubscriber): void {
    this.#subscriber = subscriber;
  }

  /** How many caches (informers) run. */
  get size(): number {
    return this.#caches.size;
  }

  /** Some informers run, and each has completed its first list. */
  get synced(): boolean {
    return this.#caches.size > 0 && [...this.#caches.values()].every((c) => c.synced);
  }

  /** Objects held by every cache together. */
  get cachedObjects(): number {
    return [...this.#caches.values()].reduce((sum, cache) => sum + cache.size, 0);
  }

  /** The cache serving a watch: its own, or the view of the kind's shared cache holding what its label selector matches. */
  forWatch(watch: Watch): Cache | SelectedView | undefined {
    const own = this.#caches.get(cacheId(watch));
    if (own || !watch.labelSelector) return own;
    const shared = this.unfiltered(watch);
    if (!shared) return undefined;
    const key = `${shared.id}|${watch.labelSelector}`;
    let view = this.#views.get(key);
    if (view?.cache !== shared) {
      view = new SelectedView(shared, watch.labelSelector);
      this.#views.set(key, view);
    }
    return view;
  }

  /** The cache of `kind` without selectors (what `related` objects come from). */
  unfiltered(kind: TypeRef): Cache | undefined {
    return this.#caches.get(cacheId({ apiVersion: kind.apiVersion, kind: kind.kind }));
  }

  /** Stops the caches no watch needs any more and starts the new ones; resolves after their first lists. */
  async ensure(manifest: Manifest): Promise<void> {
    const wanted = this.#wanted(manifest);
    for (const [id, cache] of this.#caches) {
      const entry = wanted.get(id);
      // A cache whose projection changed lists again: what it dropped cannot be filled in.
      if (entry && signature(entry.rules) === this.#projections.get(id)) continue;
      await cache.stop();
      this.#caches.delete(id);
      this.#projections.delete(id);
    }
    const starting: Promise<void>[] = [];
    for (const [id, { watch, fieldPaths, labels, rules }] of wanted) {
      const running = this.#caches.get(id);
      if (running) {
        running.indexFields(fieldPaths);
        running.indexLabels(labels);
      } else starting.push(this.#start(id, watch, fieldPaths, labels, rules));
    }
    await Promise.all(starting);
  }

  /** Makes every cache list again (see {@link Cache.relist}). */
  relist(): void {
    for (const cache of this.#caches.values()) cache.relist();
  }

  /** Stops every cache. */
  async stop(): Promise<void> {
    await Promise.all([...this.#caches.values()].map((c) => c.stop()));
  }

  #wanted(manifest: Manifest): Map<string, Wanted> {
    const wanted = new Map<string, Wanted>();
    const watches = manifest.controllers.flatMap((c) => c.watches);
    for (const watch of watches) {
      this.#client.learn(watch, { plural: watch.resource, namespaced: watch.namespaced });
      // One informer per kind: a label-selected watch shares its kind's unfiltered cache (ADR 0016).
      const id = servingCacheId(watch, watches);
      const served = wanted.get(id)?.watch ?? (id === cacheId(watch) ? watch : watches.find((w) => cacheId(w) === id) ?? watch);
      const fieldPaths = wanted.get(id)?.fieldPaths ?? new Set<string>();
      const labels = wanted.get(id)?.labels ?? new Set<string>();
      if (watch.mapping.by === "field") fieldPaths.add(watch.mapping.path);
      if (watch.mapping.by === "label") labels.add(watch.mapping.label);
      wanted.set(id, { watch: served, fieldPaths, labels, rules: [] });
    }
    for (const controller of manifest.controllers) {
      const parents = parentsCache(controller);
      if (parents) for (const path of referencePaths(controller)) wanted.get(parents)?.fieldPaths.add(path);
    }
    projectionRules(wanted, watches);
    return wanted;
  }

  #start(id: string, watch: Watch, fieldPaths: Iterable<string>, labels: Iterable<string>, rules: readonly ProjectionRule[]): Promise<void> {
    if (!this.#subscriber) throw new Error("caches started before their subscriber was given");
    const cache = new Cache(watch, this.#subscriber, new Projection(rules), this.#options);
    this.#projections.set(id, signature(rules));
    // Indexed before the first list, so that list is filed as it arrives.
    cache.indexFields(fieldPaths);
    cache.indexLabels(labels);
    this.#caches.set(id, cache);
    return cache.start(this.#kubeconfig, this.#client, this.#reporter);
  }
}
