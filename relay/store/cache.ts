/**
 * One informer: a client-node ListWatch of one kind (and selectors), with indexes by
 * key, by controller owner uid, by the values at the field paths and by the labels the
 * watches using it declare. It restarts itself after errors with backoff, relists when
 * the API server says its resourceVersion is gone (410) or out of reach (504
 * ResourceVersionTooLarge: the server's state was restored from an older backup), and
 * reports every relist with its reason so the relay can count it. A relist delivers what
 * changed as events: what the new list lacks as DELETED with its last known state (what
 * client-go calls DeletedFinalStateUnknown), an object recreated under the same name as
 * DELETED then ADDED, and nothing for an object whose resourceVersion did not change.
 * A watch silent (no event, no bookmark) for longer than a bound is ended and resumed
 * from its resourceVersion: a reconnect, not a relist.
 */
import { ListWatch, Watch as KubeWatch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import { objectKey, valuesAt, type KubeObject, type Watch } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";
import { CacheIndexes } from "./indexes.ts";
import type { Projection } from "./projection.ts";

/** What a cache reports to the relay. */
export interface CacheEvents {
  /**
   * ADDED/MODIFIED/DELETED with the object (its last state when DELETED); `initial` during
   * the first list; a change with the state it replaced, when the cache held one.
   */
  onEvent(type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, initial: boolean, previous?: KubeObject): void;
  /** A relist after the first list, once its changes have come as events (what the new list lacks as DELETED). */
  onResync(reason: RelistReason, changes: RelistCounts): void;
  /** A watch ended and resumed from its resourceVersion (no relist): `silent`, nothing came for the silence bound. */
  onRestart(reason: RestartReason): void;
  onError(error: unknown): void;
}

/** What a relist found that its watch had not said: objects deleted, and objects deleted and created again. */
export interface RelistCounts {
  readonly deleted: number;
  readonly recreated: number;
}

/** Why a watch was restarted from its resourceVersion. */
export type RestartReason = "silent";

/** What a cache is told besides its watch. */
export interface CacheOptions {
  /** Seconds without an event or bookmark after which a watch is taken for dead (default 300). */
  readonly silenceSeconds?: number;
}

/** The silence bound by default: the lower end of client-go's 5–10 minute watch timeouts. */
export const DEFAULT_SILENCE_SECONDS = 300;

/**
 * The `timeoutSeconds` a watch asks the API server for: between one and two silence
 * bounds, at random, as client-go spreads its watches over `minWatchTimeout` to twice
 * that, so that watches started together do not all reconnect together.
 */
export function watchTimeoutSeconds(silenceSeconds: number, random: number): number {
  return Math.max(1, Math.round(silenceSeconds * (1 + random)));
}

/**
 * What a relist changes beyond client-node's own diff: the cached objects the new list
 * lacks (deleted while the watch was down: delivered as DELETED with their last known
 * state) and those it holds under the same name with another uid (deleted and created
 * again: delivered as DELETED then ADDED, not as an update of one object into another).
 */
export function relistChanges(cached: readonly KubeObject[], listed: readonly { readonly metadata?: { readonly namespace?: string; readonly name?: string; readonly uid?: string } }[]): { readonly vanished: Map<string, KubeObject>; readonly replaced: Map<string, KubeObject> } {
  const uids = new Map<string, string | undefined>();
  for (const item of listed) if (item.metadata) uids.set(objectKey({ namespace: item.metadata.namespace, name: item.metadata.name ?? "" }), item.metadata.uid);
  const vanished = new Map<string, KubeObject>();
  const replaced = new Map<string, KubeObject>();
  for (const object of cached) {
    const key = objectKey(object.metadata);
    const uid = uids.get(key);
    if (!uids.has(key)) vanished.set(key, object);
    else if (object.metadata.uid !== undefined && uid !== undefined && uid !== object.metadata.uid) replaced.set(key, object);
  }
  return { vanished, replaced };
}

/**
 * Why a cache listed again: `expired` (410 Gone), `too-large` (504 ResourceVersionTooLarge),
 * `rollback` (the new list's resourceVersion is below one already seen), `forced` (asked
 * by {@link Cache.relist}).
 */
export type RelistReason = "expired" | "too-large" | "rollback" | "forced";

/** A watch ERROR (or a failed watch request) saying the resourceVersion is out of the server's reach, as client-go's `isTooLargeResourceVersionError` reads it. */
export function isTooLargeResourceVersion(status: unknown): boolean {
  if (typeof status !== "object" || status === null) return false;
  const s = status as { code?: unknown; message?: unknown; details?: { causes?: { reason?: unknown }[] } };
  if (s.code !== 504) return false;
  return (s.details?.causes ?? []).some((c) => c.reason === "ResourceVersionTooLarge") || (typeof s.message === "string" && s.message.includes("Too large resource version"));
}

/** The resourceVersion as a number, when it is one (it is opaque in general; etcd's are integers). */
function numericRv(rv: string | undefined): number | undefined {
  if (!rv || !/^\d+$/.test(rv)) return undefined;
  return Number(rv);
}

/**
 * Why a relist happened: what the watch said (`told`), unless the list came back behind
 * the newest resourceVersion seen (`newest`) without the server saying so: a 410 or a
 * forced relist that finds the server's state gone back is a rollback.
 */
export function relistReason(told: RelistReason | undefined, listRv: number | undefined, newest: number): RelistReason {
  if (listRv !== undefined && listRv < newest && told !== "too-large") return "rollback";
  return told ?? "expired";
}

/** An error client-node's ListWatch treats as 410 Gone: it drops its resourceVersion and relists. */
const GONE = Object.assign(new Error("relist"), { statusCode: 410 });

type WatchCallback = (phase: string, object: unknown, watchObject?: unknown) => void;
type WatchDone = (error: unknown) => void;

/** Whether a watch ended on client-node's inactivity timeout (ListWatch then resumes from its resourceVersion). */
function isTimeout(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "TimeoutError";
}

/**
 * client-node's watch, with changes for the one ListWatch it serves: a 504
 * ResourceVersionTooLarge ERROR is passed on as a 410, because ListWatch would otherwise
 * re-watch from the same unreachable resourceVersion for ever (it relists only on 410);
 * the watch in progress can be ended as if Gone, to relist on demand; it asks for
 * bookmarks (so a quiet kind is not taken for a dead watch) and a server-side timeout;
 * and its inactivity bound is the silence bound.
 */
class RelistingWatch extends KubeWatch {
  /** What the cache keeps of each object: applied before ListWatch stores it (issue 16 item 5). */
  projection: Projection | undefined;
  /** Why the next list happens, when known. */
  reason: RelistReason | undefined;
  /** Told each watch request's answer (`rest_client_requests_total`): its status code, or `<error>` when none came. */
  answered: ((code: string) => void) | undefined;
  /** Told of each MODIFIED object before ListWatch stores it, while the cache still holds the state it replaces. */
  beforeChange: ((object: KubeObject) => void) | undefined;
  #end: WatchDone | undefined;
  /** A relist asked for while no watch was open: the next watch ends at once. */
  #pending = false;
  readonly #silenceSeconds: number;
  readonly #onSilent: () => void;

  constructor(kc: KubeConfig, silenceSeconds: number, onSilent: () => void) {
    super(kc);
    this.#silenceSeconds = silenceSeconds;
    this.#onSilent = onSilent;
    // client-node ends a watch after `requestTimeoutMs` without a byte (30 s, not an
    // option in 2.0): the silence bound replaces it. Its TimeoutError makes ListWatch
    // reconnect from its resourceVersion at once: the restart wanted here.
    (this as unknown as { requestTimeoutMs: number }).requestTimeoutMs = silenceSeconds * 1000;
  }

  override async watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: WatchCallback, done: WatchDone): Promise<AbortController> {
    if (this.#pending) {
      this.#pending = false;
      this.reason = "forced";
      queueMicrotask(() => done(GONE));
      return new AbortController();
    }
    let ended = false;
    // An end before client-node's watch() returns is the request's own failure (its status, or no answer).
    let opening = true;
    let failed: unknown = undefined;
    // Once: the request aborted by relist() still reports its own end later.
    const end: WatchDone = (error) => {
      if (opening && error && error !== GONE) failed = error;
      if (ended) return;
      ended = true;
      if (this.#end === end) this.#end = undefined;
      const failure = error as { statusCode?: unknown; code?: unknown } | null;
      if ((failure?.statusCode ?? failure?.code) === 410) this.reason ??= "expired";
      if (isTimeout(error)) this.#onSilent();
      done(error);
    };
    this.#end = end;
    const onEvent: WatchCallback = (phase, object, watchObject) => {
      if (phase === "ERROR" && isTooLargeResourceVersion(object)) {
        this.reason = "too-large";
        callback(phase, { ...(object as object), code: 410 }, watchObject);
        return;
      }
      if (phase === "ERROR" && (object as { code?: unknown }).code === 410) this.reason ??= "expired";
      const kept = this.projection && phase !== "ERROR" && phase !== "BOOKMARK" && typeof object === "object" && object !== null ? this.projection.project(object) : object;
      if (phase === "MODIFIED" && typeof kept === "object" && kept !== null) this.beforeChange?.(kept as KubeObject);
      callback(phase, kept, watchObject);
    };
    // Bookmarks keep a quiet kind's watch from looking dead; the server ends it in time.
    const asked = { ...query, allowWatchBookmarks: true, timeoutSeconds: watchTimeoutSeconds(this.#silenceSeconds, Math.random()) };
    const controller = await super.watch(path, asked, onEvent, end);
    opening = false;
    const status = (failed as { statusCode?: unknown } | undefined)?.statusCode;
    this.answered?.(failed === undefined ? "200" : typeof status === "number" ? String(status) : "<error>");
    return controller;
  }

  /**
   * Ends the watch in progress as if Gone; when none is open (a list is running, the
   * informer waits to reconnect or retries after an error), the next one.
   */
  relist(): void {
    const end = this.#end;
    if (!end) {
      this.#pending = true;
      return;
    }
    this.reason = "forced";
    end(GONE);
  }
}

/** The identity of an informer: kind and selectors. */
export function cacheId(watch: Pick<Watch, "apiVersion" | "kind" | "labelSelector" | "fieldSelector">): string {
  return `${watch.kind}.${watch.apiVersion}|${watch.labelSelector ?? ""}|${watch.fieldSelector ?? ""}`;
}

/** Items per list request: client-go's pager default. */
const PAGE_SIZE = 500;

type ObjectList = KubernetesListObject<KubernetesObject>;

/**
 * Lists in pages of {@link PAGE_SIZE}, as client-go's reflector does: the API server
 * serves a large list without building it whole, and the relay never holds more than
 * one page of response text (a 10,000-pod list at once cost ~20 MB of transient memory).
 */
async function listInPages(client: Pick<KubeClient, "request">, path: string, query: Record<string, string | undefined>, projection?: Projection): Promise<ObjectList> {
  const items: KubernetesObject[] = [];
  let first: ObjectList | undefined;
  let token: string | undefined;
  do {
    const page = (await client.request("GET", path, { query: { ...query, limit: String(PAGE_SIZE), ...(token ? { continue: token } : {}) } })) as ObjectList;
    // Its list metadata only: the first page's 500 whole objects are not held to the end.
    first ??= { ...page, items: [] };
    // Projected page by page: the full objects of a 100,000-pod list are never held at once.
    for (const item of page.items) items.push(projection ? projection.project(item) : item);
    token = page.metadata?._continue ?? (page.metadata as { continue?: string } | undefined)?.continue;
  } while (token);
  return { ...first, items };
}

/**
 * Server-side apply bookkeeping is often the largest part of an object and no controller
 * reads it: the cache drops it, as controller-runtime's TransformStripManagedFields does.
 * Every object the informer stores passes its add or update event, where this runs.
 */
function withoutManagedFields<T extends KubernetesObject>(object: T): T {
  if (object.metadata?.managedFields) delete object.metadata.managedFields;
  return object;
}

/** One kind's cache. */
export class Cache {
  readonly id: string;
  readonly watch: Watch;
  readonly #indexes = new CacheIndexes();
  #informer: ListWatch<KubernetesObject> | undefined;
  #synced = false;
  #stopped = false;
  #retryMs = 500;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #watch: RelistingWatch | undefined;
  /** The highest numeric resourceVersion seen, to tell a list that went back in time. */
  #newestRv = 0;
  readonly #silenceSeconds: number;
  /** Objects held: ListWatch adds before ADDED and removes before DELETED, once each. */
  #count = 0;
  /** Of the relist being applied: cached objects it holds with another uid (by key). */
  #replaced = new Map<string, KubeObject>();
  /**
   * The states changes are about to replace, by key, from a watch's MODIFIED event or a
   * relist's newer item, taken before ListWatch stores the new one and handed on with the
   * change (a child that moved from one parent to another makes both dirty).
   */
  readonly #before = new Map<string, KubeObject>();

  /** What the cache keeps of each object (the whole object when absent). */
  readonly #projection: Projection | undefined;

  constructor(watch: Watch, projection?: Projection, options: CacheOptions = {}) {
    this.watch = watch;
    this.id = cacheId(watch);
    this.#silenceSeconds = options.silenceSeconds ?? DEFAULT_SILENCE_SECONDS;
    this.#projection = projection?.whole ? undefined : projection;
  }

  /** Whether the kind is namespaced (as the watch declares). */
  get namespaced(): boolean {
    return this.watch.namespaced;
  }

  /** Whether the initial list has completed. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Starts listing and watching; resolves after the initial list. */
  async start(kc: KubeConfig, client: Pick<KubeClient, "path" | "request"> & Partial<Pick<KubeClient, "countRequest">>, events: CacheEvents): Promise<void> {
    const path = await client.path(this.watch, undefined);
    const query = { labelSelector: this.watch.labelSelector, fieldSelector: this.watch.fieldSelector };
    let lists = 0;
    const watch = new RelistingWatch(kc, this.#silenceSeconds, () => {
      if (!this.#stopped) events.onRestart("silent");
    });
    watch.projection = this.#projection;
    watch.beforeChange = (object) => this.#remember(object);
    watch.answered = (code) => client.countRequest?.("GET", code);
    this.#watch = watch;
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const result = await listInPages(client, path, query, this.#projection);
      const rv = numericRv(result.metadata?.resourceVersion);
      const reason = relistReason(watch.reason, rv, this.#newestRv);
      // After a rollback the old numbers mean nothing: count from the new list's.
      if (rv !== undefined) this.#newestRv = rv;
      watch.reason = undefined;
      // ListWatch applies the list right after this returns: it deletes what the list
      // lacks, adds what is new and updates what has another resourceVersion (nothing for
      // the rest). What it deletes, and what was created again under an old name, are
      // counted here, and the latter delivered as a deletion and an addition below.
      const { vanished, replaced } = relistChanges(this.list(), result.items);
      for (const item of result.items) this.#remember(item as KubeObject);
      this.#replaced = replaced;
      const counts: RelistCounts = { deleted: vanished.size, recreated: replaced.size };
      // A list after the first is a relist; its changes have come as events by the time
      // this runs. A plain watch reconnect resumes from its resourceVersion and misses nothing.
      if (++lists > 1)
        setTimeout(() => {
          this.#replaced.clear();
          this.#before.clear();
          events.onResync(reason, counts);
        }, 0);
      return result;
    };
    const informer = new ListWatch<KubernetesObject>(path, watch, list, false, this.watch.labelSelector, this.watch.fieldSelector);
    this.#informer = informer;
    let initial = true;
    informer.on("add", (o) => this.#event("ADDED", withoutManagedFields(o) as KubeObject, initial, events));
    informer.on("update", (o) => {
      const object = withoutManagedFields(o) as KubeObject;
      const previous = this.#replaced.get(objectKey(object.metadata));
      if (previous && previous.metadata.uid !== object.metadata.uid) {
        // Deleted and created again while the watch was down: two objects, not one changed.
        this.#replaced.delete(objectKey(object.metadata));
        this.#event("DELETED", previous, initial, events);
        this.#event("ADDED", object, initial, events);
      } else {
        const before = this.#before.get(objectKey(object.metadata));
        this.#before.delete(objectKey(object.metadata));
        this.#event("MODIFIED", object, initial, events, before);
      }
    });
    // A deletion a relist found (the object is gone from the new list) carries the last
    // state the cache held: the deletion itself was never seen.
    informer.on("delete", (o) => this.#event("DELETED", o as KubeObject, initial, events));
    informer.on("error", (error) => {
      if (this.#stopped) return;
      events.onError(error);
      // client-node stops after an error: start again, backing off.
      this.#retry = setTimeout(() => void informer.start().catch((e: unknown) => events.onError(e)), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
    });
    await informer.start();
    initial = false;
    this.#synced = true;
  }

  /**
   * Lists again, replacing the cache (what the new list lacks is delivered as DELETED):
   * now, or when the informer next watches if it is listing or reconnecting.
   */
  relist(): void {
    this.#watch?.relist();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    await this.#informer?.stop();
  }

  /** How many objects the cache holds (counted as they come and go: `/metrics` asks often, and a list of every object costs a copy). */
  get size(): number {
    return this.#count;
  }

  /** Every object (in one namespace). */
  list(namespace?: string): KubeObject[] {
    return (this.#informer?.list(namespace) ?? []) as KubeObject[];
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#informer?.get(name, namespace) as KubeObject | undefined;
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

  /** Keeps the cached state `incoming` is about to replace (same uid, another resourceVersion). */
  /**
   * Whether the cache holds `object` cut to the fields its watches declare (ADR 0016), so
   * that a delivery need not cut it again (ADR 0018); false for an object kept whole.
   */
  trimmed(object: KubeObject): boolean {
    return this.#projection?.trimmed(object) ?? false;
  }

  #remember(incoming: KubeObject): void {
    const { namespace, name, uid, resourceVersion } = incoming.metadata;
    if (name === undefined) return;
    const held = this.get(namespace, name);
    if (!held || held.metadata.uid !== uid || held.metadata.resourceVersion === resourceVersion) return;
    this.#before.set(objectKey(incoming.metadata), held);
  }

  #event(type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, initial: boolean, events: CacheEvents, previous?: KubeObject): void {
    this.#retryMs = 500;
    // Not from deletions: after a rollback the ghosts deleted carry the old, higher numbers.
    if (type !== "DELETED") this.#newestRv = Math.max(this.#newestRv, numericRv(object.metadata.resourceVersion) ?? 0);
    // List items come without apiVersion and kind from a real API server.
    object.apiVersion ??= this.watch.apiVersion;
    object.kind ??= this.watch.kind;
    this.#indexes.update(object, type === "DELETED");
    if (type === "ADDED") this.#count += 1;
    else if (type === "DELETED") this.#count -= 1;
    events.onEvent(type, object, initial, previous);
  }
}
