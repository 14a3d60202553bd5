/**
 * A work queue with client-go's guarantees: a dirty key is queued once however many
 * times it is added; one key is never processed twice at once (added while in flight,
 * it runs again afterwards); failures back off per key exponentially; an overall token
 * bucket bounds the rate; concurrency is bounded. Triggers accumulate per key until
 * the key is processed.
 */

/**
 * What processing a key decided. `terminal`: it failed for good and is not retried (as
 * controller-runtime's `reconcile.TerminalError`): done for the queue, an error for the metrics.
 */
export type Outcome = { readonly kind: "done"; readonly requeueAfterMs?: number; readonly terminal?: boolean } | { readonly kind: "retry"; readonly afterMs?: number };

/**
 * Told what the queue does, at the points where client-go's workqueue calls its metrics
 * (`add`, `get`, `done`, and `retry` from the delaying queue's `AddAfter`), so that its
 * metrics can be kept outside the queue. Every method must be cheap and must not throw.
 */
export interface QueueObserver {
  /** `key` is due for processing (ready, or dirty again while in flight); told again while it waits. */
  add(key: string): void;
  /** `key` was taken for processing. */
  get(key: string): void;
  /** Processing of `key` ended with `outcome` (a thrown error is a `retry`). */
  done(key: string, outcome: Outcome): void;
  /** `key` is put back for later after its processing: a retry after a failure, or a requeue it asked for. */
  retry(key: string): void;
}

/** Clock and timers, injectable for tests. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Work queue settings. */
export interface WorkQueueOptions {
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
  readonly observer?: QueueObserver;
}

const NO_OBSERVER: QueueObserver = { add: () => undefined, get: () => undefined, done: () => undefined, retry: () => undefined };

/** The work queue. `T` is what accumulates per key (the triggers). */
export class WorkQueue<T> {
  readonly #dirty = new Map<string, T[]>();
  readonly #ready: string[] = [];
  readonly #readySet = new Set<string>();
  readonly #inFlight = new Set<string>();
  readonly #delayed = new Map<string, { at: number; handle: unknown }>();
  readonly #failures = new Map<string, number>();
  /** Failing keys whose last failure came with a wait the server asked for (see {@link retryFailedNow}). */
  readonly #toldToWait = new Set<string>();
  /** Keys in flight made dirty by a batched add only: when the earliest of those batches is due. */
  readonly #batchedDue = new Map<string, number>();
  /** Keys in flight made dirty by an immediate add: they run again as soon as they are done. */
  readonly #urgent = new Set<string>();
  readonly #options: Required<Omit<WorkQueueOptions, "clock" | "observer">>;
  readonly #clock: Clock;
  readonly #observer: QueueObserver;
  #tokens: number;
  #refilledAt: number;
  #tokenTimer: unknown = undefined;
  #process: ((key: string, items: T[]) => Promise<Outcome>) | undefined;
  #stopped = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions) {
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
    for (const key of this.#dirty.keys()) waiting.add(key);
    for (const key of this.#delayed.keys()) waiting.add(key);
    return waiting.size;
  }

  /** Keys backing off after a failed run (also counted in {@link depth}). */
  get retrying(): number {
    let count = 0;
    for (const key of this.#delayed.keys()) if (this.#failures.has(key)) count += 1;
    return count;
  }

  /** Keys being processed now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Marks `key` dirty, remembering `item` for its next processing. */
  add(key: string, item?: T): void {
    if (this.#stopped) return;
    const items = this.#dirty.get(key) ?? [];
    if (item !== undefined) items.push(item);
    this.#dirty.set(key, items);
    this.#cancelDelay(key);
    if (this.#inFlight.has(key)) this.#urgent.add(key);
    this.#observer.add(key);
    if (!this.#inFlight.has(key) && !this.#readySet.has(key)) {
      this.#ready.push(key);
      this.#readySet.add(key);
    }
    this.#pump();
  }

  /** Marks `key` dirty after `ms` (an earlier pending delay wins). */
  addAfter(key: string, ms: number): void {
    if (this.#stopped) return;
    if (ms <= 0) return this.add(key);
    const at = this.#clock.now() + ms;
    const existing = this.#delayed.get(key);
    if (existing && existing.at <= at) return;
    if (existing) this.#clock.clearTimeout(existing.handle);
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, ms);
    this.#delayed.set(key, { at, handle });
  }

  /**
   * Marks `key` dirty with `item`, to be processed `ms` from now unless it is already
   * ready, in flight (it runs again when done) or due sooner: the changes of a burst ride
   * on one processing.
   */
  addBatched(key: string, item: T | undefined, ms: number): void {
    if (this.#stopped) return;
    if (ms <= 0) return this.add(key, item);
    const items = this.#dirty.get(key) ?? [];
    if (item !== undefined) items.push(item);
    this.#dirty.set(key, items);
    if (this.#inFlight.has(key)) this.#observer.add(key);
    if (this.#inFlight.has(key)) {
      const due = this.#clock.now() + ms;
      if (due < (this.#batchedDue.get(key) ?? Infinity)) this.#batchedDue.set(key, due);
      return;
    }
    if (this.#readySet.has(key)) return;
    const existing = this.#delayed.get(key);
    if (existing && existing.at <= this.#clock.now() + ms) return;
    this.#requeue(key, ms);
  }

  /** Starts processing with `process`. */
  start(process: (key: string, items: T[]) => Promise<Outcome>): void {
    this.#process = process;
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
    for (const key of [...this.#failures.keys()]) {
      if (this.#toldToWait.has(key) || !this.#delayed.has(key)) continue;
      this.#failures.delete(key);
      this.#requeue(key, 0);
      released += 1;
    }
    return released;
  }

  /** The backoff a key gets after its `failures`-th consecutive failure. */
  backoff(failures: number): number {
    return Math.min(this.#options.maxDelayMs, this.#options.baseDelayMs * 2 ** Math.max(0, failures - 1));
  }

  #cancelDelay(key: string): void {
    const delayed = this.#delayed.get(key);
    if (!delayed) return;
    this.#clock.clearTimeout(delayed.handle);
    this.#delayed.delete(key);
  }

  #takeToken(): boolean {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#options.burst, this.#tokens + ((now - this.#refilledAt) / 1000) * this.#options.ratePerSecond);
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
    const process = this.#process;
    if (!process || this.#stopped) return;
    while (this.#inFlight.size < this.#options.concurrency && this.#ready.length > 0) {
      if (!this.#takeToken()) return;
      const key = this.#ready.shift() as string;
      this.#readySet.delete(key);
      const items = this.#dirty.get(key) ?? [];
      this.#dirty.delete(key);
      this.#inFlight.add(key);
      this.#observer.get(key);
      void this.#run(process, key, items);
    }
  }

  async #run(process: (key: string, items: T[]) => Promise<Outcome>, key: string, items: T[]): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await process(key, items);
    } catch {
      outcome = { kind: "retry" };
    }
    this.#inFlight.delete(key);
    const urgent = this.#urgent.delete(key);
    const batchedDue = this.#batchedDue.get(key);
    this.#batchedDue.delete(key);
    this.#observer.done(key, outcome);
    if (outcome.kind === "retry") {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      // The triggers were not handled: keep them for the retry.
      const pending = this.#dirty.get(key) ?? [];
      this.#dirty.set(key, [...items, ...pending]);
      this.#observer.retry(key);
      if ((outcome.afterMs ?? 0) > 0) this.#toldToWait.add(key);
      else this.#toldToWait.delete(key);
      this.#requeue(key, Math.max(outcome.afterMs ?? 0, this.backoff(failures)));
    } else {
      this.#failures.delete(key);
      this.#toldToWait.delete(key);
      // Dirty again while in flight: run again now (that run decides any requeue); a
      // requeue must never hold back a change that arrived meanwhile. Changes that were
      // all batched still wait out their batch: run at once, a reconcile slower than the
      // batch period made every change of a burst a reconcile of its own.
      if (this.#dirty.has(key) && !urgent && batchedDue !== undefined && batchedDue > this.#clock.now()) this.#requeueBy(key, batchedDue);
      else if (this.#dirty.has(key)) this.add(key);
      else if (outcome.requeueAfterMs !== undefined) {
        this.#observer.retry(key);
        this.addAfter(key, outcome.requeueAfterMs);
      }
    }
    if (this.#inFlight.size === 0 && this.#idleWaiters.length > 0) this.#idleWaiters.splice(0).forEach((resolve) => resolve());
    this.#pump();
  }

  /** Queues `key` at `at` unless it is already due sooner. */
  #requeueBy(key: string, at: number): void {
    const existing = this.#delayed.get(key);
    if (existing && existing.at <= at) return;
    this.#requeue(key, at - this.#clock.now());
  }

  #requeue(key: string, ms: number): void {
    if (this.#stopped) return;
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.#observer.add(key);
      if (!this.#inFlight.has(key) && !this.#readySet.has(key)) {
        this.#ready.push(key);
        this.#readySet.add(key);
      }
      this.#pump();
    }, ms);
    const existing = this.#delayed.get(key);
    if (existing) this.#clock.clearTimeout(existing.handle);
    this.#delayed.set(key, { at: this.#clock.now() + ms, handle });
  }
}
