/**
 * One informer: a client-node ListWatch of one kind (and selectors), with indexes by
 * key, by controller owner uid, and by the values at the field paths the watches using
 * it declare. It restarts itself after errors with backoff, and reports every relist so
 * the relay can resync.
 */
import { ListWatch, Watch as KubeWatch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import { valuesAt, type KubeObject, type Watch } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";
import { CacheIndexes } from "./indexes.ts";

/** What a cache reports to the relay. */
export interface CacheEvents {
  /** ADDED/MODIFIED/DELETED with the object (its last state when DELETED); `initial` during the first list. */
  onEvent(type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, initial: boolean): void;
  /** A relist after the first list (410 Gone, restart after an error): everything should be looked at. */
  onResync(): void;
  onError(error: unknown): void;
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
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const result = await listInPages(client, path, query);
      // A list after the first is a relist (410 Gone, or a restart after an error): events
      // may have been missed, so every parent is looked at again. A plain watch reconnect
      // resumes from its resourceVersion and misses nothing.
      if (++lists > 1) setTimeout(() => events.onResync(), 0);
      return result;
    };
    const informer = new ListWatch<KubernetesObject>(path, new KubeWatch(kc), list, false, this.watch.labelSelector, this.watch.fieldSelector);
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
    // List items come without apiVersion and kind from a real API server.
    object.apiVersion ??= this.watch.apiVersion;
    object.kind ??= this.watch.kind;
    this.#indexes.update(object, type === "DELETED");
    events.onEvent(type, object, initial);
  }
}
