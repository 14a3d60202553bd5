/**
 * Long-poll reads parked in a Durable Object until its next write (or their wait ends):
 * an Outbox read waiting for an append, a channel feed read waiting for a frame. In
 * memory: a parked read belongs to the request that waits, and an object that restarts
 * has none.
 */
export class ParkedReads {
  readonly #waiters = new Set<() => void>();

  /** Resolves at the next {@link wakeAll}, or after `timeoutMs`. */
  park(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#waiters.add(done);
    });
  }

  /** Wakes every parked read. */
  wakeAll(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }
}
