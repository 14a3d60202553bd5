import type { KubeObject } from "../../protocol/index.ts";
import { EventHistory } from "./history.ts";

/** An object as stored: never mutated after commit; `json` is its serialisation, reused by list and watch. */
export interface Stored {
  readonly object: KubeObject;
  readonly json: string;
}

/** One committed change. */
export interface StoreEvent {
  readonly rv: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  /** Storage key of the resource (`group/plural`). */
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly stored: Stored;
  /** The previous state, for MODIFIED and DELETED. */
  readonly previous: Stored | undefined;
  /** Not a commit: an object restored from disk, announced again to the listeners (see `replay`). */
  readonly replayed?: true;
}

/** One object of a table, as kept on disk and restored. */
export interface StoredEntry {
  /** Storage key of the resource (`group/plural`). */
  readonly resource: string;
  readonly stored: Stored;
}

export type StoreListener = (event: StoreEvent) => void;

/**
 * The object store: one table per resource, one global monotonic resourceVersion, a bounded
 * event history, and in-order, re-entrancy-safe delivery of committed events to listeners.
 */
export class Store {
  #rv = 0;
  readonly #tables = new Map<string, Map<string, Stored>>();
  readonly #listeners = new Set<StoreListener>();
  readonly #queue: StoreEvent[] = [];
  #delivering = false;
  readonly history: EventHistory;

  constructor(historySize: number) {
    this.history = new EventHistory(historySize);
  }

  /** The resourceVersion of the latest commit. */
  get resourceVersion(): number {
    return this.#rv;
  }

  get(resource: string, namespace: string | undefined, name: string): Stored | undefined {
    return this.#tables.get(resource)?.get(keyOf(namespace, name));
  }

  /** Every object of a resource, optionally in one namespace, in key order. */
  list(resource: string, namespace?: string): Stored[] {
    const table = this.#tables.get(resource);
    if (!table) return [];
    const out: Stored[] = [];
    for (const stored of table.values()) {
      if (namespace === undefined || stored.object.metadata.namespace === namespace) out.push(stored);
    }
    return out;
  }

  /** How many objects a resource holds in a namespace (all namespaces when undefined). */
  count(resource: string, namespace?: string): number {
    return namespace === undefined ? (this.#tables.get(resource)?.size ?? 0) : this.list(resource, namespace).length;
  }

  /** Writes (ADDED/MODIFIED) or removes (DELETED) an object under a fresh resourceVersion. */
  commit(resource: string, type: StoreEvent["type"], object: KubeObject): Stored {
    this.#rv += 1;
    const rv = this.#rv;
    const committed: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    const stored: Stored = { object: committed, json: JSON.stringify(committed) };
    const namespace = committed.metadata.namespace;
    const key = keyOf(namespace, committed.metadata.name ?? "");
    let table = this.#tables.get(resource);
    if (!table) {
      table = new Map();
      this.#tables.set(resource, table);
    }
    const previous = table.get(key);
    if (type === "DELETED") table.delete(key);
    else table.set(key, stored);
    const event: StoreEvent = { rv, type, resource, namespace, stored, previous };
    this.history.push(event);
    this.#queue.push(event);
    this.#drain();
    return stored;
  }

  /** Every object of every resource (the state a snapshot writes). */
  *entries(): Generator<StoredEntry> {
    for (const [resource, table] of this.#tables) for (const stored of table.values()) yield { resource, stored };
  }

  /**
   * Replaces every table with objects restored from disk, each keeping its own
   * resourceVersion, and continues the resourceVersion from `resourceVersion` (or the
   * newest object's, if higher). The history restarts there: a watch from an older
   * version gets 410 Gone and relists, as from a compacted etcd. Call it before anyone
   * watches; nothing is announced (see `replay`).
   */
  restore(objects: Iterable<{ readonly resource: string; readonly object: KubeObject }>, resourceVersion: number): void {
    this.#tables.clear();
    let newest = Math.max(this.#rv, resourceVersion);
    for (const { resource, object } of objects) {
      let table = this.#tables.get(resource);
      if (!table) this.#tables.set(resource, (table = new Map()));
      table.set(keyOf(object.metadata.namespace, object.metadata.name ?? ""), { object, json: JSON.stringify(object) });
      newest = Math.max(newest, Number(object.metadata.resourceVersion ?? 0) || 0);
    }
    this.#rv = newest;
    this.history.compact(newest);
  }

  /**
   * Announces every stored object to the listeners as ADDED (marked `replayed`, kept out
   * of the history), as an informer's first list does: controllers that learn the state
   * from events see what was restored. Owners come before their dependents, so that no
   * dependent looks orphaned. Returns how many objects were announced.
   */
  replay(): number {
    const ordered = ownersFirst([...this.entries()].sort((a, b) => rvOf(a.stored) - rvOf(b.stored)));
    for (const { resource, stored } of ordered) {
      this.#queue.push({ rv: rvOf(stored), type: "ADDED", resource, namespace: stored.object.metadata.namespace, stored, previous: undefined, replayed: true });
    }
    this.#drain();
    return ordered.length;
  }

  /** Drops every object of a resource without events (used when a CRD's kind stops being served, after DELETED events were sent). */
  dropTable(resource: string): void {
    this.#tables.delete(resource);
  }

  /** Subscribes to every commit from now on; returns the unsubscribe function. */
  subscribe(listener: StoreListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  // A listener that commits while being notified must not see its own event before others see the current one.
  #drain(): void {
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      for (let event = this.#queue.shift(); event; event = this.#queue.shift()) {
        for (const listener of [...this.#listeners]) {
          try {
            listener(event);
          } catch {
            // A failing listener must not break the commit path or other listeners.
          }
        }
      }
    } finally {
      this.#delivering = false;
    }
  }
}

function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function rvOf(stored: Stored): number {
  return Number(stored.object.metadata.resourceVersion ?? 0) || 0;
}

/** `entries` reordered so that each object comes after the owners (by uid) it names; otherwise in the given order. */
function ownersFirst(entries: readonly StoredEntry[]): StoredEntry[] {
  const byUid = new Map<string, StoredEntry>();
  for (const entry of entries) if (entry.stored.object.metadata.uid) byUid.set(entry.stored.object.metadata.uid, entry);
  const placed = new Set<StoredEntry>();
  const out: StoredEntry[] = [];
  const place = (entry: StoredEntry): void => {
    if (placed.has(entry)) return;
    placed.add(entry); // before the owners: a cycle of owners cannot recurse forever
    for (const ref of entry.stored.object.metadata.ownerReferences ?? []) {
      const owner = byUid.get(ref.uid);
      if (owner) place(owner);
    }
    out.push(entry);
  };
  entries.forEach(place);
  return out;
}
