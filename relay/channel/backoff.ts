/** The channel loops' retry delays: doubling from a first delay to a ceiling, back to the first after a success. */

/** First and longest delay, in ms (200 ms → 10 s, as the outbox drainer's). */
export interface BackoffLimits {
  readonly firstMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffLimits = { firstMs: 200, maxMs: 10_000 };

/** One loop's retry delay. */
export class Backoff {
  readonly #limits: BackoffLimits;
  #next: number;

  constructor(limits: BackoffLimits = DEFAULT_BACKOFF) {
    this.#limits = limits;
    this.#next = limits.firstMs;
  }

  /** The delay to wait now; the next one doubles (up to the ceiling). */
  next(): number {
    const delay = this.#next;
    this.#next = Math.min(delay * 2, this.#limits.maxMs);
    return delay;
  }

  /** After a success: the next failure waits the first delay again. */
  reset(): void {
    this.#next = this.#limits.firstMs;
  }
}

/** Waits `ms`, or less when `signal` aborts first; resolves either way (the caller checks why). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
