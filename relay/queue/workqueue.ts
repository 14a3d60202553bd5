/**
 * A work queue with client-go's guarantees: a dirty key is queued once however many
 * times it is added; one key is never processed twice at once (added while in flight,
 * it runs again afterwards); failures back off per key exponentially; an overall token
 * bucket bounds the rate; concurrency is bounded. Triggers accumulate per key until
 * the key is processed.
 */

/** What processing a key decided. */
export type Outcome = { readonly kind: "done"; readonly requeueAfterMs?: number } | { readonly kind: "retry"; readonly afterMs?: number };

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
}

/** The work queue. `T` is what accumulates per key (the triggers). */
export class WorkQueue<T> {
  readonly #dirty = new Map<string, T[]>();
  readonly #ready: string[] = [];
  readonly #readySet = new Set<string>();
  readonly #inFlight = new Set<string>();
  readonly #delayed = new Map<string, { at: number; handle: unknown }>();
  readonly #failures = new Map<string, number>();
  readonly #options: Required<Omit<WorkQueueOptions, "clock">>;
  readonly #clock: Clock;
  #tokens: number;
  #refilledAt: number;
  #tokenTimer: unknown = undefined;
  #process: ((key: string, items: T[]) => Promise<Outcome>) | undefined;
  #stopped = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions) {
    this.#options = { baseDelayMs: 5, maxDelayMs: 30_000, ratePerSecond: 1_000, burst: 2_000, ...options };
    this.#clock = options.clock ?? systemClock;
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
    if (this.#inFlight.has(key) || this.#readySet.has(key)) return;
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
    if (outcome.kind === "retry") {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      // The triggers were not handled: keep them for the retry.
      const pending = this.#dirty.get(key) ?? [];
      this.#dirty.set(key, [...items, ...pending]);
      this.#requeue(key, Math.max(outcome.afterMs ?? 0, this.backoff(failures)));
    } else {
      this.#failures.delete(key);
      // Dirty again while in flight: run again now (that run decides any requeue); a
      // requeue must never hold back a change that arrived meanwhile.
      if (this.#dirty.has(key)) this.add(key);
      else if (outcome.requeueAfterMs !== undefined) this.addAfter(key, outcome.requeueAfterMs);
    }
    if (this.#inFlight.size === 0 && this.#idleWaiters.length > 0) this.#idleWaiters.splice(0).forEach((resolve) => resolve());
    this.#pump();
  }

  #requeue(key: string, ms: number): void {
    if (this.#stopped) return;
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
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
