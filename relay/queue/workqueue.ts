/**
 * A work queue with client-go's guarantees: a dirty key is queued once however many
 * times it is added; one key is never processed twice at once (added while in flight,
 * it runs again afterwards); failures back off per key exponentially; an overall token
 * bucket bounds the rate; concurrency is bounded. Items (the triggers) accumulate per key
 * until the key is processed. Keys are typed values (`./key.ts`), kept by their `id`.
 */

/**
 * What processing a key decided. `terminal`: it failed for good and is not retried (as
 * controller-runtime's `reconcile.TerminalError`): done for the queue, an error for the metrics.
 */
export type Outcome = { readonly kind: "done"; readonly requeueAfterMs?: number; readonly terminal?: boolean } | { readonly kind: "retry"; readonly afterMs?: number };

/** What a queue key must have: its identity, the same string for equal keys. */
export interface Keyed {
  readonly id: string;
}

/** The queue's input: what marks keys dirty (the router). */
export interface KeySink<K extends Keyed, T> {
  /** Marks `key` dirty with `item`, to run as soon as it may. */
  add(key: K, item?: T): void;
  /** Marks `key` dirty with `item`, to run `ms` from now unless it runs sooner (the changes of a burst ride on one run). */
  addBatched(key: K, item: T | undefined, ms: number): void;
}

/** The queue's output: what processes one key with the items gathered for it (the reconciler). */
export interface KeyWorker<K extends Keyed, T> {
  process(key: K, items: T[]): Promise<Outcome>;
}

/**
 * Told what the queue does, at the points where client-go's workqueue calls its metrics
 * (`add`, `get`, `done`, and `retry` from the delaying queue's `AddAfter`), so that its
 * metrics can be kept outside the queue. Every method must be cheap and must not throw.
 */
export interface QueueObserver<K> {
  /** `key` is due for processing (ready, or dirty again while in flight); told again while it waits. */
  add(key: K): void;
  /** `key` was taken for processing. */
  get(key: K): void;
  /** Processing of `key` ended with `outcome` (a thrown error is a `retry`). */
  done(key: K, outcome: Outcome): void;
  /** `key` is put back for later after its processing: a retry after a failure, or a requeue it asked for. */
  retry(key: K): void;
}

/**
 * Clock and timers, injectable for tests. `now` must be monotonic (milliseconds from any
 * origin): the token bucket, backoffs and batches measure elapsed time with it, and a wall
 * clock stepped back 120 s stalled the whole queue for 120 s (issue 28).
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock: `performance.now()`, monotonic, never `Date.now()` (stepped by NTP or an operator); Node's timers are monotonic too. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Work queue settings. */
export interface WorkQueueOptions<K, T = unknown> {
  readonly concurrency: number;
  /** First retry delay of a failing key (doubles per failure). Default 5 ms. */
  readonly baseDelayMs?: number;
  /** Cap of the per-key backoff. Default 30 s. */
  readonly maxDelayMs?: number;
  /** Overall rate limit (keys per second) and burst. Default 1,000/s, burst 2,000. */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  readonly clock?: Clock;
  /** Told of adds, gets, dones and retries (metrics). */
  readonly observer?: QueueObserver<K>;
  /**
   * Drops the items a key's next run does not need (repeats of one object's change): run
   * on a key's items whenever they have doubled since, so a key waiting long (the Worker
   * away) holds what its objects are, not every event.
   */
  readonly compact?: (items: T[]) => T[];
  /**
   * Told what the queue drops on purpose: `repeated-event`, items `compact` dropped;
   * `duplicate-key`, an add of a key already waiting (ready, in flight or delayed), which
   * rides on that key's next run instead of queueing it twice.
   */
  readonly dropped?: (reason: DropReason, count: number) => void;
}

const NO_OBSERVER: QueueObserver<unknown> = { add: () => undefined, get: () => undefined, done: () => undefined, retry: () => undefined };

/** Why the queue dropped something on purpose (`edgeloop_queue_dropped_total`). */
export type DropReason = "repeated-event" | "duplicate-key";

/** A dirty key and the items gathered for its next run. */
interface Dirty<K, T> {
  readonly key: K;
  items: T[];
  /** How many items were left by the last compaction (compacted again when doubled). */
  compacted: number;
}

/** Items a key gathers before the first compaction. */
const COMPACT_FROM = 32;

/** The work queue. `K` is the key, `T` what accumulates per key (the triggers). Maps are kept by the keys' ids. */
export class WorkQueue<K extends Keyed, T> implements KeySink<K, T> {
  readonly #dirty = new Map<string, Dirty<K, T>>();
  readonly #ready: K[] = [];
  readonly #readySet = new Set<string>();
  readonly #inFlight = new Set<string>();
  readonly #delayed = new Map<string, { key: K; at: number; handle: unknown }>();
  readonly #failures = new Map<string, number>();
  /** Failing keys whose last failure came with a wait the server asked for (see {@link retryFailedNow}). */
  readonly #toldToWait = new Set<string>();
  /** Keys in flight made dirty by a batched add only: when the earliest of those batches is due. */
  readonly #batchedDue = new Map<string, number>();
  /** Keys in flight made dirty by an immediate add: they run again as soon as they are done. */
  readonly #urgent = new Set<string>();
  readonly #options: Required<Omit<WorkQueueOptions<K, T>, "clock" | "observer" | "compact" | "dropped">> & Pick<WorkQueueOptions<K, T>, "compact" | "dropped">;
  readonly #clock: Clock;
  readonly #observer: QueueObserver<K>;
  #tokens: number;
  #refilledAt: number;
  #tokenTimer: unknown = undefined;
  #worker: KeyWorker<K, T> | undefined;
  #stopped = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions<K, T>) {
    const { clock, observer, ...settings } = options;
    this.#options = { baseDelayMs: 5, maxDelayMs: 30_000, ratePerSecond: 1_000, burst: 2_000, ...settings };
    this.#clock = clock ?? systemClock;
    this.#observer = observer ?? NO_OBSERVER;
    this.#tokens = this.#options.burst;
    this.#refilledAt = this.#clock.now();
  }

  /**
   * Keys waiting, whatever for: ready, backing off after a failure, requeued for later,
   * or dirty again while in flight. Counting only the ready ones read 0 through a Worker
   * outage while every key sat in backoff.
   */
  get depth(): number {
    const waiting = new Set(this.#readySet);
    for (const id of this.#dirty.keys()) waiting.add(id);
    for (const id of this.#delayed.keys()) waiting.add(id);
    return waiting.size;
  }

  /** Keys backing off after a failed run (also counted in {@link depth}). */
  get retrying(): number {
    let count = 0;
    for (const id of this.#delayed.keys()) if (this.#failures.has(id)) count += 1;
    return count;
  }

  /** Keys being processed now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Marks `key` dirty, remembering `item` for its next processing. */
  add(key: K, item?: T): void {
    if (this.#stopped) return;
    const id = key.id;
    if (this.#readySet.has(id) || this.#delayed.has(id) || this.#urgent.has(id)) this.#options.dropped?.("duplicate-key", 1);
    this.#gather(key, item);
    this.#cancelDelay(id);
    if (this.#inFlight.has(id)) this.#urgent.add(id);
    this.#observer.add(key);
    if (!this.#inFlight.has(id) && !this.#readySet.has(id)) this.#makeReady(key);
    this.#pump();
  }

  /** Marks `key` dirty after `ms` (an earlier pending delay wins). */
  addAfter(key: K, ms: number): void {
    if (this.#stopped) return;
    if (ms <= 0) return this.add(key);
    const id = key.id;
    const at = this.#clock.now() + ms;
    const existing = this.#delayed.get(id);
    if (existing && existing.at <= at) return;
    if (existing) this.#clock.clearTimeout(existing.handle);
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(id);
      this.add(key);
    }, ms);
    this.#delayed.set(id, { key, at, handle });
  }

  /**
   * Marks `key` dirty with `item`, to be processed `ms` from now unless it is already
   * ready, in flight (it runs again when done) or due sooner: the changes of a burst ride
   * on one processing.
   */
  addBatched(key: K, item: T | undefined, ms: number): void {
    if (this.#stopped) return;
    if (ms <= 0) return this.add(key, item);
    const id = key.id;
    this.#gather(key, item);
    if (this.#inFlight.has(id)) {
      this.#observer.add(key);
      const due = this.#clock.now() + ms;
      if (due < (this.#batchedDue.get(id) ?? Infinity)) this.#batchedDue.set(id, due);
      return;
    }
    if (this.#readySet.has(id)) return;
    const existing = this.#delayed.get(id);
    if (existing && existing.at <= this.#clock.now() + ms) return;
    this.#requeue(key, ms);
  }

  /** Starts processing with `worker`. */
  start(worker: KeyWorker<K, T>): void {
    this.#worker = worker;
    this.#pump();
  }

  /** Stops taking keys, cancels delays; resolves when in-flight keys are done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const { handle } of this.#delayed.values()) this.#clock.clearTimeout(handle);
    this.#delayed.clear();
    if (this.#tokenTimer !== undefined) this.#clock.clearTimeout(this.#tokenTimer);
    if (this.#inFlight.size > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Runs every key backing off after a failure at once, its failure count forgotten: for
   * when what they failed on is back (the Worker answers again). A key held for a wait the
   * API server asked for (`Retry-After`) keeps it. Without this, keys that failed through
   * a 30 s Worker outage waited out backoffs grown to the cap after it ended. Returns how
   * many keys were released.
   */
  retryFailedNow(): number {
    let released = 0;
    for (const id of [...this.#failures.keys()]) {
      const delayed = this.#delayed.get(id);
      if (this.#toldToWait.has(id) || !delayed) continue;
      this.#failures.delete(id);
      this.#requeue(delayed.key, 0);
      released += 1;
    }
    return released;
  }

  /** The backoff a key gets after its `failures`-th consecutive failure. */
  backoff(failures: number): number {
    return Math.min(this.#options.maxDelayMs, this.#options.baseDelayMs * 2 ** Math.max(0, failures - 1));
  }

  /** Keeps `item` (if any) for the next run of `key`, which is dirty from now on. */
  #gather(key: K, item: T | undefined): void {
    const dirty = this.#dirty.get(key.id);
    if (!dirty) {
      this.#dirty.set(key.id, { key, items: item === undefined ? [] : [item], compacted: 0 });
      return;
    }
    if (item === undefined) return;
    dirty.items.push(item);
    const compact = this.#options.compact;
    if (compact === undefined || dirty.items.length < Math.max(COMPACT_FROM, 2 * dirty.compacted)) return;
    const before = dirty.items.length;
    dirty.items = compact(dirty.items);
    dirty.compacted = dirty.items.length;
    if (before > dirty.items.length) this.#options.dropped?.("repeated-event", before - dirty.items.length);
  }

  #makeReady(key: K): void {
    this.#ready.push(key);
    this.#readySet.add(key.id);
  }

  #cancelDelay(id: string): void {
    const delayed = this.#delayed.get(id);
    if (!delayed) return;
    this.#clock.clearTimeout(delayed.handle);
    this.#delayed.delete(id);
  }

  #takeToken(): boolean {
    const now = this.#clock.now();
    // Never less than nothing: a clock that went back must not take tokens away (a stall as long as the step).
    const elapsed = Math.max(0, now - this.#refilledAt);
    this.#tokens = Math.min(this.#options.burst, this.#tokens + (elapsed / 1000) * this.#options.ratePerSecond);
    this.#refilledAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return true;
    }
    if (this.#tokenTimer === undefined) {
      const wait = Math.ceil(((1 - this.#tokens) / this.#options.ratePerSecond) * 1000);
      this.#tokenTimer = this.#clock.setTimeout(() => {
        this.#tokenTimer = undefined;
        this.#pump();
      }, wait);
    }
    return false;
  }

  #pump(): void {
    const worker = this.#worker;
    if (!worker || this.#stopped) return;
    while (this.#inFlight.size < this.#options.concurrency && this.#ready.length > 0) {
      if (!this.#takeToken()) return;
      const key = this.#ready.shift() as K;
      const id = key.id;
      this.#readySet.delete(id);
      const items = this.#dirty.get(id)?.items ?? [];
      this.#dirty.delete(id);
      this.#inFlight.add(id);
      this.#observer.get(key);
      void this.#run(worker, key, items);
    }
  }

  async #run(worker: KeyWorker<K, T>, key: K, items: T[]): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await worker.process(key, items);
    } catch {
      outcome = { kind: "retry" };
    }
    const id = key.id;
    this.#inFlight.delete(id);
    const urgent = this.#urgent.delete(id);
    const batchedDue = this.#batchedDue.get(id);
    this.#batchedDue.delete(id);
    this.#observer.done(key, outcome);
    if (outcome.kind === "retry") this.#retryLater(key, items, outcome);
    else this.#finished(key, outcome, urgent, batchedDue);
    if (this.#inFlight.size === 0 && this.#idleWaiters.length > 0) this.#idleWaiters.splice(0).forEach((resolve) => resolve());
    this.#pump();
  }

  /** A failed run: its items are kept for the retry, after the backoff (or the wait the server asked for, if longer). */
  #retryLater(key: K, items: T[], outcome: Outcome & { kind: "retry" }): void {
    const id = key.id;
    const failures = (this.#failures.get(id) ?? 0) + 1;
    this.#failures.set(id, failures);
    // The triggers were not handled: keep them for the retry, ahead of those that came meanwhile.
    const pending = this.#dirty.get(id)?.items ?? [];
    const kept = [...items, ...pending];
    // A key failing through an outage keeps what its objects are, not every event of it.
    const compacted = this.#options.compact && kept.length >= COMPACT_FROM ? this.#options.compact(kept) : kept;
    if (compacted.length < kept.length) this.#options.dropped?.("repeated-event", kept.length - compacted.length);
    this.#dirty.set(id, { key, items: compacted, compacted: compacted === kept ? 0 : compacted.length });
    this.#observer.retry(key);
    if ((outcome.afterMs ?? 0) > 0) this.#toldToWait.add(id);
    else this.#toldToWait.delete(id);
    this.#requeue(key, Math.max(outcome.afterMs ?? 0, this.backoff(failures)));
  }

  /**
   * A run that is done. Dirty again while in flight: run again now (that run decides any
   * requeue); a requeue must never hold back a change that arrived meanwhile. Changes that
   * were all batched still wait out their batch: run at once, a reconcile slower than the
   * batch period made every change of a burst a reconcile of its own.
   */
  #finished(key: K, outcome: Outcome & { kind: "done" }, urgent: boolean, batchedDue: number | undefined): void {
    const id = key.id;
    this.#failures.delete(id);
    this.#toldToWait.delete(id);
    if (this.#dirty.has(id) && !urgent && batchedDue !== undefined && batchedDue > this.#clock.now()) this.#requeueBy(key, batchedDue);
    else if (this.#dirty.has(id)) this.add(key);
    else if (outcome.requeueAfterMs !== undefined) {
      this.#observer.retry(key);
      this.addAfter(key, outcome.requeueAfterMs);
    }
  }

  /** Queues `key` at `at` unless it is already due sooner. */
  #requeueBy(key: K, at: number): void {
    const existing = this.#delayed.get(key.id);
    if (existing && existing.at <= at) return;
    this.#requeue(key, at - this.#clock.now());
  }

  #requeue(key: K, ms: number): void {
    if (this.#stopped) return;
    const id = key.id;
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(id);
      this.#observer.add(key);
      if (!this.#inFlight.has(id) && !this.#readySet.has(id)) this.#makeReady(key);
      this.#pump();
    }, ms);
    const existing = this.#delayed.get(id);
    if (existing) this.#clock.clearTimeout(existing.handle);
    this.#delayed.set(id, { key, at: this.#clock.now() + ms, handle });
  }
}
