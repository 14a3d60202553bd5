/**
 * The informers the manifest asks for: one cache per kind and selectors, however many
 * controllers watch it, started and stopped as the manifest changes, each indexing the
 * field paths its watches map by.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Manifest, TypeRef, Watch } from "../protocol/index.ts";
import type { KubeClient } from "./kube/client.ts";
import { Cache, cacheId, type CacheEvents, type RelistReason } from "./watch/cache.ts";

/** What the informers report, with the cache that saw it. */
export interface InformerEvents {
  onEvent(cache: Cache, ...event: Parameters<CacheEvents["onEvent"]>): void;
  onResync(id: string, reason: RelistReason): void;
  onError(id: string, error: unknown): void;
}

/** What one cache serves: a watch to create it from, and the field paths to index. */
interface Wanted {
  readonly watch: Watch;
  readonly fieldPaths: Set<string>;
}

/** The caches of the manifest in use. */
export class Informers {
  readonly #kubeconfig: KubeConfig;
  readonly #client: KubeClient;
  readonly #events: InformerEvents;
  readonly #caches = new Map<string, Cache>();

  constructor(kubeconfig: KubeConfig, client: KubeClient, events: InformerEvents) {
    this.#kubeconfig = kubeconfig;
    this.#client = client;
    this.#events = events;
  }

  /** How many informers run. */
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

  /** The cache serving a watch. */
  forWatch(watch: Watch): Cache | undefined {
    return this.#caches.get(cacheId(watch));
  }

  /** The cache of `kind` without selectors (what `related` objects come from). */
  unfiltered(kind: TypeRef): Cache | undefined {
    return this.#caches.get(cacheId({ apiVersion: kind.apiVersion, kind: kind.kind }));
  }

  /** Stops the caches no watch needs any more and starts the new ones; resolves after their first lists. */
  async ensure(manifest: Manifest): Promise<void> {
    const wanted = this.#wanted(manifest);
    for (const [id, cache] of this.#caches) {
      if (wanted.has(id)) continue;
      await cache.stop();
      this.#caches.delete(id);
    }
    const starting: Promise<void>[] = [];
    for (const [id, { watch, fieldPaths }] of wanted) {
      const running = this.#caches.get(id);
      if (running) running.indexFields(fieldPaths);
      else starting.push(this.#start(id, watch, fieldPaths));
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
    for (const watch of manifest.controllers.flatMap((c) => c.watches)) {
      this.#client.learn(watch, { plural: watch.resource, namespaced: watch.namespaced });
      const id = cacheId(watch);
      const fieldPaths = wanted.get(id)?.fieldPaths ?? new Set<string>();
      if (watch.mapping.by === "field") fieldPaths.add(watch.mapping.path);
      wanted.set(id, { watch, fieldPaths });
    }
    return wanted;
  }

  #start(id: string, watch: Watch, fieldPaths: Iterable<string>): Promise<void> {
    const cache = new Cache(watch);
    // Indexed before the first list, so that list is filed as it arrives.
    cache.indexFields(fieldPaths);
    this.#caches.set(id, cache);
    return cache.start(this.#kubeconfig, this.#client, {
      onEvent: (type, object, initial) => this.#events.onEvent(cache, type, object, initial),
      onResync: (reason) => this.#events.onResync(id, reason),
      onError: (error) => this.#events.onError(id, error),
    });
  }
}
