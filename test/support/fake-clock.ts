/** A manual clock for work-queue tests: time moves only when `advance` is called. */
import type { Clock } from "../../relay/queue/workqueue.ts";

interface Timer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** A {@link Clock} whose timers fire on `advance`. */
export class FakeClock implements Clock {
  #now = 0;
  #next = 1;
  #timers: Timer[] = [];

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.#next++, at: this.#now + Math.max(0, ms), fn };
    this.#timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }

  /** Timers waiting. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in order (letting promises settle between). */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.fn();
    }
    this.#now = until;
    await settle();
  }
}

/**
 * Resolves once every pending promise callback has run, however long their chain: the
 * microtask queue is drained before the event loop reaches its check phase (setImmediate).
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
