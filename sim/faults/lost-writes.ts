/**
 * Lost writes, for chaos tests: an API server that restarts on a store which lost its
 * last acknowledged writes (an etcd member whose latest appends never reached the disk,
 * the sim's own state folder losing its last `flushMs`). While recording, every commit is
 * kept for `windowMs` with the state it replaced; `rewind(lastMs)` undoes the commits of
 * the last `lastMs`, newest first, so every object is as it was before them: a create
 * acknowledged is gone, a bind undone, a delete undone (the object is back). The undo is
 * committed as ordinary changes (a fresh resourceVersion each), so the sim's own
 * controllers, which learn the state from the store's events, see it; the caller then
 * compacts the history and ends the watches, so every client relists and finds the older
 * state, as after a kube-apiserver restart.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { StoreEvent, StoreListener } from "../store/store.ts";

/** What the recorder needs of the store. */
export interface RecordableStore {
  subscribe(listener: StoreListener): () => void;
  commit(resource: string, type: StoreEvent["type"], object: KubeObject): unknown;
}

/** What one rewind undid, by kind of write. */
export interface LostWrites {
  readonly creates: number;
  /** Pods whose `spec.nodeName` was set (a binding) in the window. */
  readonly binds: number;
  readonly updates: number;
  readonly deletes: number;
  /** How many writes were lost per resource (`/pods`, `events.k8s.io/events`, ...). */
  readonly byResource: Readonly<Record<string, number>>;
  /** `resource namespace/name` of each object whose write was lost, oldest first (at most 20). */
  readonly examples: readonly string[];
}

/** At most this many commits are kept, whatever the window (the oldest go first). */
const RECORD_LIMIT = 50_000;
const EXAMPLES = 20;

/** Records the store's commits and undoes the latest ones. */
export class WriteRecorder {
  readonly #store: RecordableStore;
  readonly #now: () => number;
  #recorded: { readonly at: number; readonly event: StoreEvent }[] = [];
  #unsubscribe: (() => void) | undefined;
  #windowMs = 0;
  #rewinding = false;

  /** `now` is a monotonic clock in ms (a wall-clock step must not change what is lost). */
  constructor(store: RecordableStore, now: () => number = () => performance.now()) {
    this.#store = store;
    this.#now = now;
  }

  /** Keeps every commit from now on for `windowMs` (again: a new window, records kept). */
  record(windowMs: number): void {
    this.#windowMs = windowMs;
    this.#unsubscribe ??= this.#store.subscribe((event) => this.#keep(event));
  }

  /** Stops recording and forgets what was recorded. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#recorded = [];
  }

  /** Whether commits are being recorded. */
  get recording(): boolean {
    return this.#unsubscribe !== undefined;
  }

  /** Undoes every commit of the last `lastMs` (at most the window), newest first; says what was lost. */
  rewind(lastMs: number): LostWrites {
    const since = this.#now() - Math.min(lastMs, this.#windowMs);
    const lost = this.#recorded.filter((entry) => entry.at >= since).map((entry) => entry.event);
    this.#recorded = this.#recorded.filter((entry) => entry.at < since);
    this.#rewinding = true;
    try {
      for (const event of [...lost].reverse()) this.#undo(event);
    } finally {
      this.#rewinding = false;
    }
    return summarise(lost);
  }

  #keep(event: StoreEvent): void {
    if (this.#rewinding || event.replayed) return;
    const at = this.#now();
    this.#recorded.push({ at, event });
    const oldest = at - this.#windowMs;
    let drop = 0;
    while (drop < this.#recorded.length && ((this.#recorded[drop]?.at ?? at) < oldest || this.#recorded.length - drop > RECORD_LIMIT)) drop += 1;
    if (drop > 0) this.#recorded.splice(0, drop);
  }

  #undo(event: StoreEvent): void {
    if (event.type === "ADDED") this.#store.commit(event.resource, "DELETED", event.stored.object);
    else if (event.previous) this.#store.commit(event.resource, event.type === "DELETED" ? "ADDED" : "MODIFIED", event.previous.object);
  }
}

/** A pod bound by this change: no node before, a node after. */
function isBind(event: StoreEvent): boolean {
  if (event.type !== "MODIFIED" || event.resource !== "/pods") return false;
  const node = (object: KubeObject | undefined): unknown => (object as { spec?: { nodeName?: unknown } } | undefined)?.spec?.nodeName;
  return !node(event.previous?.object) && Boolean(node(event.stored.object));
}

function summarise(lost: readonly StoreEvent[]): LostWrites {
  const count = (match: (event: StoreEvent) => boolean): number => lost.filter(match).length;
  const binds = count(isBind);
  const byResource: Record<string, number> = {};
  for (const event of lost) byResource[event.resource] = (byResource[event.resource] ?? 0) + 1;
  return {
    byResource,
    creates: count((event) => event.type === "ADDED"),
    binds,
    updates: count((event) => event.type === "MODIFIED") - binds,
    deletes: count((event) => event.type === "DELETED"),
    examples: lost.slice(0, EXAMPLES).map((event) => `${event.resource} ${event.namespace ? `${event.namespace}/` : ""}${event.stored.object.metadata.name ?? ""}`),
  };
}
