/**
 * One informer: a client-node ListWatch of one kind (and selectors), with indexes by
 * key, by controller owner uid, and by the values at the field paths the watches using
 * it declare. It restarts itself after errors with backoff, relists when the API server
 * says its resourceVersion is gone (410) or out of reach (504 ResourceVersionTooLarge:
 * the server's state was restored from an older backup), and reports every relist with
 * its reason so the relay can resync and count it.
 */
import { ListWatch, Watch as KubeWatch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import { valuesAt, type KubeObject, type Watch } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";
import { CacheIndexes } from "./indexes.ts";

/** What a cache reports to the relay. */
export interface CacheEvents {
  /** ADDED/MODIFIED/DELETED with the object (its last state when DELETED); `initial` during the first list. */
  onEvent(type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, initial: boolean): void;
  /** A relist after the first list: everything should be looked at. Objects gone from the new list came as DELETED before this. */
  onResync(reason: RelistReason): void;
  onError(error: unknown): void;
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

/**
 * client-node's watch, with two changes for the one ListWatch it serves: a 504
 * ResourceVersionTooLarge ERROR is passed on as a 410, because ListWatch would otherwise
 * re-watch from the same unreachable resourceVersion for ever (it relists only on 410);
 * and the watch in progress can be ended as if Gone, to relist on demand.
 */
class RelistingWatch extends KubeWatch {
  /** Why the next list happens, when known. */
  reason: RelistReason | undefined;
  #end: WatchDone | undefined;
  /** A relist asked for while no watch was open: the next watch ends at once. */
  #pending = false;

  override async watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: WatchCallback, done: WatchDone): Promise<AbortController> {
    if (this.#pending) {
      this.#pending = false;
      this.reason = "forced";
      queueMicrotask(() => done(GONE));
      return new AbortController();
    }
    let ended = false;
    // Once: the request aborted by relist() still reports its own end later.
    const end: WatchDone = (error) => {
      if (ended) return;
      ended = true;
      if (this.#end === end) this.#end = undefined;
      const failure = error as { statusCode?: unknown; code?: unknown } | null;
      if ((failure?.statusCode ?? failure?.code) === 410) this.reason ??= "expired";
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
      callback(phase, object, watchObject);
    };
    return super.watch(path, query, onEvent, end);
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
async function listInPages(client: KubeClient, path: string, query: Record<string, string | undefined>): Promise<ObjectList> {
  const items: KubernetesObject[] = [];
  let first: ObjectList | undefined;
  let token: string | undefined;
  do {
    const page = (await client.request("GET", path, { query: { ...query, limit: String(PAGE_SIZE), ...(token ? { continue: token } : {}) } })) as ObjectList;
    first ??= page;
    for (const item of page.items) items.push(item);
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

  constructor(watch: Watch) {
    this.watch = watch;
    this.id = cacheId(watch);
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
  async start(kc: KubeConfig, client: KubeClient, events: CacheEvents): Promise<void> {
    const path = await client.path(this.watch, undefined);
    const query = { labelSelector: this.watch.labelSelector, fieldSelector: this.watch.fieldSelector };
    let lists = 0;
    const watch = new RelistingWatch(kc);
    this.#watch = watch;
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const result = await listInPages(client, path, query);
      const rv = numericRv(result.metadata?.resourceVersion);
      const reason = relistReason(watch.reason, rv, this.#newestRv);
      // After a rollback the old numbers mean nothing: count from the new list's.
      if (rv !== undefined) this.#newestRv = rv;
      watch.reason = undefined;
      // A list after the first is a relist: events may have been missed, so every parent
      // is looked at again (ListWatch has delivered what the new list lacks as deletions
      // by then). A plain watch reconnect resumes from its resourceVersion and misses nothing.
      if (++lists > 1) setTimeout(() => events.onResync(reason), 0);
      return result;
    };
    const informer = new ListWatch<KubernetesObject>(path, watch, list, false, this.watch.labelSelector, this.watch.fieldSelector);
    this.#informer = informer;
    let initial = true;
    informer.on("add", (o) => this.#event("ADDED", withoutManagedFields(o) as KubeObject, initial, events));
    informer.on("update", (o) => this.#event("MODIFIED", withoutManagedFields(o) as KubeObject, initial, events));
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

  /** How many objects the cache holds. */
  get size(): number {
    return this.#informer?.list().length ?? 0;
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

  /** Objects with `value` at `path` (a path not indexed is read by a scan). */
  withField(path: string, value: string): KubeObject[] {
    return this.#indexes.withField(path, value) ?? this.list().filter((object) => valuesAt(object, path).includes(value));
  }

  #event(type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, initial: boolean, events: CacheEvents): void {
    this.#retryMs = 500;
    // Not from deletions: after a rollback the ghosts deleted carry the old, higher numbers.
    if (type !== "DELETED") this.#newestRv = Math.max(this.#newestRv, numericRv(object.metadata.resourceVersion) ?? 0);
    // List items come without apiVersion and kind from a real API server.
    object.apiVersion ??= this.watch.apiVersion;
    object.kind ??= this.watch.kind;
    this.#indexes.update(object, type === "DELETED");
    events.onEvent(type, object, initial);
  }
}
