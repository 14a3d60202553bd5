/**
 * The store stage: one kind's cache. Its informer (`watch/informer.ts`) lists and watches
 * and holds the objects, each cut to what the cache keeps (`./projection.ts`); the cache
 * indexes them by controller owner uid, by the values at the field paths and by the
 * labels its watches declare (`./indexes.ts`), counts them, and passes each change on to
 * its {@link CacheSubscriber} (the router), once the indexes hold it.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { valuesAt, type KubeObject, type Watch } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";
import { Informer, type InformerOptions, type InformerSubscriber, type WatchReporter } from "../watch/informer.ts";
import { CacheIndexes } from "./indexes.ts";
import type { Projection } from "./projection.ts";

/** The store stage's output: each change of a cache, with the cache that holds it. */
export interface CacheSubscriber {
  /** A new object; `initial` during the cache's first list. */
  added(cache: Cache, object: KubeObject, initial: boolean): void;
  /** A changed object, with the state it replaced when the cache held one. */
  modified(cache: Cache, object: KubeObject, previous: KubeObject | undefined, initial: boolean): void;
  /** A deleted object, in its last known state. */
  deleted(cache: Cache, object: KubeObject, initial: boolean): void;
}

/** The identity of a cache: kind and selectors. */
export function cacheId(watch: Pick<Watch, "apiVersion" | "kind" | "labelSelector" | "fieldSelector">): string {
  return `${watch.kind}.${watch.apiVersion}|${watch.labelSelector ?? ""}|${watch.fieldSelector ?? ""}`;
}

/** One kind's cache. */
export class Cache implements InformerSubscriber {
  readonly id: string;
  readonly watch: Watch;
  readonly #indexes = new CacheIndexes();
  readonly #informer: Informer;
  readonly #subscriber: CacheSubscriber;
  /** What the cache keeps of each object (the whole object when absent). */
  readonly #projection: Projection | undefined;
  /** Objects held: ListWatch adds before an addition and removes before a deletion, once each. */
  #count = 0;

  constructor(watch: Watch, subscriber: CacheSubscriber, projection?: Projection, options: InformerOptions = {}) {
    this.watch = watch;
    this.id = cacheId(watch);
    this.#subscriber = subscriber;
    this.#projection = projection?.whole ? undefined : projection;
    this.#informer = new Informer(this.id, watch, this.#projection, options);
  }

  /** Whether the kind is namespaced (as the watch declares). */
  get namespaced(): boolean {
    return this.watch.namespaced;
  }

  /** Whether the initial list has completed. */
  get synced(): boolean {
    return this.#informer.synced;
  }

  /** Starts listing and watching; resolves after the initial list. */
  start(kc: KubeConfig, client: Pick<KubeClient, "path" | "request"> & Partial<Pick<KubeClient, "countRequest">>, reporter: WatchReporter): Promise<void> {
    return this.#informer.start(kc, client, this, reporter);
  }

  /** Lists again (what the new list lacks is delivered as deleted). */
  relist(): void {
    this.#informer.relist();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  added(object: KubeObject, initial: boolean): void {
    this.#file(object, false);
    this.#count += 1;
    this.#subscriber.added(this, object, initial);
  }

  modified(object: KubeObject, previous: KubeObject | undefined, initial: boolean): void {
    this.#file(object, false);
    this.#subscriber.modified(this, object, previous, initial);
  }

  deleted(object: KubeObject, initial: boolean): void {
    this.#file(object, true);
    this.#count -= 1;
    this.#subscriber.deleted(this, object, initial);
  }

  /** How many objects the cache holds (counted as they come and go: `/metrics` asks often, and a list of every object costs a copy). */
  get size(): number {
    return this.#count;
  }

  /** Every object (in one namespace). */
  list(namespace?: string): KubeObject[] {
    return this.#informer.list(namespace);
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#informer.get(namespace, name);
  }

  /** Objects whose controller ownerReference has this uid. */
  ownedBy(uid: string): KubeObject[] {
    return this.#indexes.ownedBy(uid);
  }

  /**
   * Indexes the values at exactly these field paths (those the `field` mappings of the
   * watches sharing this cache declare). Call before {@link start} so the first list is
   * indexed; a path added later is filled from what the cache holds.
   */
  indexFields(paths: Iterable<string>): void {
    this.#indexes.indexFields(paths, () => this.list());
  }

  /** Indexes exactly these label keys (those the `label` mappings of its watches read); see {@link indexFields}. */
  indexLabels(labels: Iterable<string>): void {
    this.#indexes.indexLabels(labels, () => this.list());
  }

  /** Objects whose label `label` is `value` (a label not indexed is read by a scan). */
  withLabel(label: string, value: string): KubeObject[] {
    return this.#indexes.withLabel(label, value) ?? this.list().filter((object) => object.metadata.labels?.[label] === value);
  }

  /** Objects with `value` at `path` (a path not indexed is read by a scan). */
  withField(path: string, value: string): KubeObject[] {
    return this.#indexes.withField(path, value) ?? this.list().filter((object) => valuesAt(object, path).includes(value));
  }

  /**
   * Whether the cache holds `object` cut to the fields its watches declare (ADR 0016), so
   * that a delivery need not cut it again (ADR 0018); false for an object kept whole.
   */
  trimmed(object: KubeObject): boolean {
    return this.#projection?.trimmed(object) ?? false;
  }

  /** The object's kind filled in (list items come without it from a real API server), then its index entries. */
  #file(object: KubeObject, removed: boolean): void {
    object.apiVersion ??= this.watch.apiVersion;
    object.kind ??= this.watch.kind;
    this.#indexes.update(object, removed);
  }
}
