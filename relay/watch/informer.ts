/**
 * The watch stage: one list-and-watch stream of one kind (and selectors), client-node's
 * ListWatch fed by {@link RelistingWatch}, listing in pages (`./pages.ts`). It restarts
 * itself after errors with backoff, relists when the API server says its resourceVersion
 * is gone (410) or out of reach (504 ResourceVersionTooLarge: the server's state was
 * restored from an older backup), and reports every relist with its reason. A relist
 * delivers what changed as events: what the new list lacks as deleted with its last
 * known state (what client-go calls DeletedFinalStateUnknown), an object recreated under
 * the same name as deleted then added, and nothing for an object whose resourceVersion
 * did not change. A watch silent (no event, no bookmark) for longer than a bound is ended
 * and resumed from its resourceVersion: a reconnect, not a relist. A kind the API server
 * does not serve (404 on its list: a CRD not installed, an alpha API not enabled) is said
 * once, holds nothing, and is listed again every {@link NOT_SERVED_RETRY_SECONDS} quietly
 * until it is served. ListWatch holds the objects; the store stage (`store/cache.ts`)
 * indexes them and passes each change on.
 */
import { ListWatch, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { objectKey, type KubeObject, type Watch } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";
import { listInPages, type ObjectList } from "./pages.ts";
import { numericRv, relistChanges, relistReason, type RelistCounts, type RelistReason } from "./relist.ts";
import { DEFAULT_SILENCE_SECONDS, RelistingWatch, type WatchObserver } from "./relisting-watch.ts";
import type { ObjectTransform } from "./transform.ts";

/** How often a kind the server does not serve is listed again (a CRD may be installed later). */
export const NOT_SERVED_RETRY_SECONDS = 60;

/** The watch stage's output: each change of the objects, as ListWatch stores it. */
export interface InformerSubscriber {
  /** A new object; `initial` during the first list. */
  added(object: KubeObject, initial: boolean): void;
  /** A changed object, with the state it replaced when the informer held one. */
  modified(object: KubeObject, previous: KubeObject | undefined, initial: boolean): void;
  /** A deleted object, in its last known state. */
  deleted(object: KubeObject, initial: boolean): void;
}

/** Why a watch was restarted from its resourceVersion. */
export type RestartReason = "silent";

/** What the informers report for the relay's logs and metrics (`ops/watch-reports.ts`). */
export interface WatchReporter {
  /** A relist after the first list, once its changes have come as events. */
  relisted(informer: string, reason: RelistReason, changes: RelistCounts): void;
  /** A watch ended and resumed from its resourceVersion (no relist): `silent`, nothing came for the silence bound. */
  restarted(informer: string, reason: RestartReason): void;
  failed(informer: string, error: unknown): void;
  /** The server does not serve the kind (its list answered 404): said once; looked at again every `retrySeconds`. */
  notServed(informer: string, retrySeconds: number): void;
  /** A kind said not served is served now (its list succeeded). */
  served(informer: string): void;
}

/** What an informer is told besides its watch. */
export interface InformerOptions {
  /** Seconds without an event or bookmark after which a watch is taken for dead (default 300). */
  readonly silenceSeconds?: number;
  /** Seconds between lists of a kind the server does not serve (default {@link NOT_SERVED_RETRY_SECONDS}). */
  readonly notServedRetrySeconds?: number;
}

/**
 * Server-side apply bookkeeping is often the largest part of an object and no controller
 * reads it: it is dropped, as controller-runtime's TransformStripManagedFields does.
 * Every object stored passes its add or update event, where this runs.
 */
function withoutManagedFields(object: KubernetesObject): KubeObject {
  if (object.metadata?.managedFields) delete object.metadata.managedFields;
  return object as KubeObject;
}

/**
 * Every object a ListWatch holds. Its own `list()` without a namespace copies each
 * namespace's objects with `push(...values)`, one argument per object: past ~120,000 in
 * one namespace that overflows the stack (a `RangeError` that ended the relay at its first
 * resync of 150,000 pods). Its per-namespace maps are read instead, element by element;
 * where they are not what this version of client-node has (`objects`, a Map of Maps by
 * namespace), its own `list()` is used, and `informer.test.ts` fails.
 */
export function everyObject(listWatch: ListWatch<KubernetesObject>): KubeObject[] {
  const byNamespace = (listWatch as unknown as { objects?: unknown }).objects;
  if (!(byNamespace instanceof Map)) return listWatch.list() as KubeObject[];
  const all: KubeObject[] = [];
  for (const objects of (byNamespace as Map<string, Map<string, KubeObject>>).values()) for (const object of objects.values()) all.push(object);
  return all;
}

/** The list-and-watch of one kind. */
export class Informer implements WatchObserver {
  readonly id: string;
  readonly #watch: Watch;
  readonly #transform: ObjectTransform | undefined;
  readonly #silenceSeconds: number;
  readonly #notServedRetryMs: number;
  /** The last list answered 404: the kind is not served. */
  #notServed = false;
  #listWatch: ListWatch<KubernetesObject> | undefined;
  #stream: RelistingWatch | undefined;
  #subscriber: InformerSubscriber | undefined;
  #reporter: WatchReporter | undefined;
  #client: (Pick<KubeClient, "request"> & Partial<Pick<KubeClient, "countRequest">>) | undefined;
  #initial = true;
  #stopped = false;
  #lists = 0;
  #retryMs = 500;
  #retry: ReturnType<typeof setTimeout> | undefined;
  /** The highest numeric resourceVersion seen, to tell a list that went back in time. */
  #newestRv = 0;
  /** Of the relist being applied: cached objects it holds with another uid (by key). */
  #replaced = new Map<string, KubeObject>();
  /**
   * The states changes are about to replace, by key, from a watch's MODIFIED event or a
   * relist's newer item, taken before ListWatch stores the new one and handed on with the
   * change (a child that moved from one parent to another makes both dirty).
   */
  readonly #before = new Map<string, KubeObject>();

  /** `id` names it in reports; `transform` cuts each object before it is stored. */
  constructor(id: string, watch: Watch, transform: ObjectTransform | undefined, options: InformerOptions = {}) {
    this.id = id;
    this.#watch = watch;
    this.#transform = transform;
    this.#silenceSeconds = options.silenceSeconds ?? DEFAULT_SILENCE_SECONDS;
    this.#notServedRetryMs = (options.notServedRetrySeconds ?? NOT_SERVED_RETRY_SECONDS) * 1000;
  }

  /** Whether the initial list has completed. */
  get synced(): boolean {
    return this.#listWatch !== undefined && !this.#initial;
  }

  /** Starts listing and watching, telling `subscriber` of each change; resolves after the initial list. */
  async start(kc: KubeConfig, client: Pick<KubeClient, "path" | "request"> & Partial<Pick<KubeClient, "countRequest">>, subscriber: InformerSubscriber, reporter: WatchReporter): Promise<void> {
    this.#subscriber = subscriber;
    this.#reporter = reporter;
    this.#client = client;
    const path = await client.path(this.#watch, undefined);
    const query = { labelSelector: this.#watch.labelSelector, fieldSelector: this.#watch.fieldSelector };
    const stream = new RelistingWatch(kc, this.#silenceSeconds, this.#transform, this);
    this.#stream = stream;
    const listWatch = new ListWatch<KubernetesObject>(path, stream, () => this.#list(client, path, query, stream), false, this.#watch.labelSelector, this.#watch.fieldSelector);
    this.#listWatch = listWatch;
    listWatch.on("add", (object) => this.#added(object));
    listWatch.on("update", (object) => this.#updated(object));
    // A deletion a relist found (the object is gone from the new list) carries the last
    // state the cache held: the deletion itself was never seen.
    listWatch.on("delete", (object) => this.#deleted(object as KubeObject));
    listWatch.on("error", (error) => this.#failed(listWatch, error));
    await listWatch.start();
    this.#initial = false;
  }

  /**
   * Lists again, replacing what is held (what the new list lacks is delivered as deleted):
   * now, or when the informer next watches if it is listing or reconnecting.
   */
  relist(): void {
    this.#stream?.relist();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    await this.#listWatch?.stop();
  }

  /** Every object held (in one namespace). */
  list(namespace?: string): KubeObject[] {
    const listWatch = this.#listWatch;
    if (!listWatch) return [];
    if (namespace) return listWatch.list(namespace) as KubeObject[];
    return everyObject(listWatch);
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#listWatch?.get(name, namespace) as KubeObject | undefined;
  }

  answered(code: string): void {
    this.#client?.countRequest?.("GET", code);
  }

  modifying(object: KubeObject): void {
    this.#remember(object);
  }

  silent(): void {
    if (!this.#stopped) this.#reporter?.restarted(this.id, "silent");
  }

  /** One list (the first, or a relist): paged, its reason decided, its changes beyond ListWatch's own diff prepared. */
  async #list(client: Pick<KubeClient, "request">, path: string, query: Record<string, string | undefined>, stream: RelistingWatch): Promise<ObjectList> {
    const result = await listInPages(client, path, query, this.#transform);
    if (this.#notServed) {
      this.#notServed = false;
      this.#retryMs = 500;
      this.#reporter?.served(this.id);
    }
    const rv = numericRv(result.metadata?.resourceVersion);
    const reason = relistReason(stream.reason, rv, this.#newestRv);
    // After a rollback the old numbers mean nothing: count from the new list's.
    if (rv !== undefined) this.#newestRv = rv;
    stream.reason = undefined;
    // ListWatch applies the list right after this returns: it deletes what the list
    // lacks, adds what is new and updates what has another resourceVersion (nothing for
    // the rest). What it deletes, and what was created again under an old name, are
    // counted here, and the latter delivered as a deletion and an addition below.
    const { vanished, replaced } = relistChanges(this.list(), result.items as KubeObject[]);
    for (const item of result.items) this.#remember(item as KubeObject);
    this.#replaced = replaced;
    const counts: RelistCounts = { deleted: vanished.size, recreated: replaced.size };
    // A list after the first is a relist; its changes have come as events by the time
    // this runs. A plain watch reconnect resumes from its resourceVersion and misses nothing.
    if (++this.#lists > 1) setTimeout(() => this.#relisted(reason, counts), 0);
    return result;
  }

  #relisted(reason: RelistReason, counts: RelistCounts): void {
    this.#replaced.clear();
    this.#before.clear();
    this.#reporter?.relisted(this.id, reason, counts);
  }

  #added(object: KubernetesObject): void {
    const added = withoutManagedFields(object);
    this.#seen(added);
    this.#subscriber?.added(added, this.#initial);
  }

  #updated(object: KubernetesObject): void {
    const updated = withoutManagedFields(object);
    const key = objectKey(updated.metadata);
    const previous = this.#replaced.get(key);
    this.#seen(updated);
    if (previous && previous.metadata.uid !== updated.metadata.uid) {
      // Deleted and created again while the watch was down: two objects, not one changed.
      this.#replaced.delete(key);
      this.#subscriber?.deleted(previous, this.#initial);
      this.#subscriber?.added(updated, this.#initial);
      return;
    }
    const before = this.#before.get(key);
    this.#before.delete(key);
    this.#subscriber?.modified(updated, before, this.#initial);
  }

  #deleted(object: KubeObject): void {
    this.#retryMs = 500;
    this.#subscriber?.deleted(object, this.#initial);
  }

  /** An object stored: the stream works again, and its resourceVersion is the newest seen so far (not from deletions: after a rollback the ghosts deleted carry the old, higher numbers). */
  #seen(object: KubeObject): void {
    this.#retryMs = 500;
    this.#newestRv = Math.max(this.#newestRv, numericRv(object.metadata.resourceVersion) ?? 0);
  }

  /** client-node stops after an error: start again, backing off; a kind not served is looked at again seldom, said once. */
  #failed(listWatch: ListWatch<KubernetesObject>, error: unknown): void {
    if (this.#stopped) return;
    if (isNotFound(error)) {
      if (!this.#notServed) this.#reporter?.notServed(this.id, this.#notServedRetryMs / 1000);
      this.#notServed = true;
      this.#retry = setTimeout(() => void listWatch.start().catch((e: unknown) => this.#reporter?.failed(this.id, e)), this.#notServedRetryMs);
      return;
    }
    this.#reporter?.failed(this.id, error);
    this.#retry = setTimeout(() => void listWatch.start().catch((e: unknown) => this.#reporter?.failed(this.id, e)), this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
  }

  /** Keeps the state `incoming` is about to replace (same uid, another resourceVersion). */
  #remember(incoming: KubeObject): void {
    const { namespace, name, uid, resourceVersion } = incoming.metadata;
    if (name === undefined) return;
    const held = this.get(namespace, name);
    if (!held || held.metadata.uid !== uid || held.metadata.resourceVersion === resourceVersion) return;
    this.#before.set(objectKey(incoming.metadata), held);
  }
}

/** A 404 from the list or the watch: the server does not serve the kind (a StatusError, or client-node's error of a watch). */
function isNotFound(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { status?: unknown; statusCode?: unknown; code?: unknown };
  return e.status === 404 || e.statusCode === 404 || e.code === 404;
}
