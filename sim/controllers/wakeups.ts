/**
 * One timer per key where the earliest wins: a container due to exit in an hour must
 * still be woken when its pod is deleted a second from now (`KeyQueue.addAfter` keeps
 * whichever timer was set first).
 */

/** setTimeout's longest delay; a later wake-up is re-armed when this one fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Earliest-wins timers per key. */
export class Wakeups {
  readonly #timers = new Map<string, { at: number; timer: ReturnType<typeof setTimeout> }>();
  readonly #wake: (key: string) => void;
  #stopped = false;

  constructor(wake: (key: string) => void) {
    this.#wake = wake;
  }

  /** Wakes `key` at `at` (epoch ms), unless it is already due to wake earlier. */
  at(key: string, at: number): void {
    const existing = this.#timers.get(key);
    if (this.#stopped || (existing && existing.at <= at)) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => {
        this.#timers.delete(key);
        this.#wake(key);
      },
      Math.min(MAX_DELAY_MS, Math.max(0, at - Date.now())),
    );
    this.#timers.set(key, { at, timer });
  }

  /** Cancels the wake-up of `key`. */
  cancel(key: string): void {
    const existing = this.#timers.get(key);
    if (existing) clearTimeout(existing.timer);
    this.#timers.delete(key);
  }

  /** Cancels every wake-up, for good. */
  stop(): void {
    this.#stopped = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
