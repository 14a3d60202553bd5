/**
 * Per-key exponential retry delays after an API refusal (client-go's
 * ItemExponentialFailureRateLimiter), so that a controller whose writes are refused
 * retries, and records its Warning Events, at a falling rate instead of every few ms.
 */
export class FailureBackoff {
  readonly #failures = new Map<string, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  constructor(baseMs = 1000, maxMs = 60_000) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  /** Counts a failure of `key`; returns the delay before its next attempt. */
  next(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    return Math.min(this.#maxMs, this.#baseMs * 2 ** failures);
  }

  /** A success: the next failure starts from the base delay again. */
  forget(key: string): void {
    this.#failures.delete(key);
  }
}
