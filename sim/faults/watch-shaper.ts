/**
 * Duplicated and reordered watch events, for chaos tests. An event is sent twice, or held
 * and sent after the next event of another object. Only events of different objects are
 * swapped: one watch stream never reorders the events of one object (its resourceVersions
 * only grow), but what a client sees of different objects and kinds, across streams and
 * reconnects, comes in no promised order. A held event is sent within `holdMs` even when
 * no other event follows, and before any bookmark, so nothing is lost.
 */
import { z } from "zod";

/** How watch events are shaped: the chance per event of each. */
export const WatchShaping = z.object({
  duplicate: z.number().min(0).max(1).default(0),
  reorder: z.number().min(0).max(1).default(0),
  /** Longest an event is held waiting for one to swap with. */
  holdMs: z.number().int().min(1).max(10_000).default(100),
});
export type WatchShaping = z.output<typeof WatchShaping>;
export type WatchShapingInput = z.input<typeof WatchShaping>;

/** Counts of what was done, shared by the shapers of one API server. */
export interface ShapedCounts {
  duplicated: number;
  reordered: number;
}

/** Shapes the events of one watch stream. */
export class WatchShaper {
  readonly #write: (line: string) => void;
  readonly #shaping: () => WatchShaping | undefined;
  readonly #random: () => number;
  readonly #counts: ShapedCounts;
  #held: { line: string; object: string; timer: ReturnType<typeof setTimeout> } | undefined;

  constructor(write: (line: string) => void, shaping: () => WatchShaping | undefined, random: () => number, counts: ShapedCounts) {
    this.#write = write;
    this.#shaping = shaping;
    this.#random = random;
    this.#counts = counts;
  }

  /** An event `line` about `object` (its namespace/name). */
  event(line: string, object: string): void {
    const held = this.#held;
    if (held) {
      this.#held = undefined;
      clearTimeout(held.timer);
      if (held.object !== object) {
        this.#write(line);
        this.#write(held.line);
        this.#counts.reordered += 1;
      } else {
        this.#write(held.line);
        this.#write(line);
      }
      return;
    }
    const shaping = this.#shaping();
    if (shaping && shaping.duplicate > 0 && this.#random() < shaping.duplicate) {
      this.#write(line);
      this.#write(line);
      this.#counts.duplicated += 1;
      return;
    }
    if (shaping && shaping.reorder > 0 && this.#random() < shaping.reorder) {
      this.#held = { line, object, timer: setTimeout(() => this.flush(), shaping.holdMs) };
      return;
    }
    this.#write(line);
  }

  /** Sends a held event now (before a bookmark, or at the end of the stream). */
  flush(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    clearTimeout(held.timer);
    this.#write(held.line);
  }
}
