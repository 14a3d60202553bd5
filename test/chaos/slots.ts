/**
 * Counting a workload's children against what is expected: each expected child is a slot
 * (a key such as `fl/job-0/train-1`), each object observed fills the slot it names. A slot
 * left empty is a lost object, every object beyond the first in a slot a duplicate, and
 * an object naming no expected slot a duplicate too (something created that nobody asked for).
 */

/** The count of one look at the cluster. */
export interface SlotCount {
  readonly expected: number;
  /** Slots filled exactly once. */
  readonly once: number;
  readonly lost: number;
  readonly duplicated: number;
  /** Up to 5 slots lost or duplicated, for the table. */
  readonly examples: readonly string[];
}

/** Counts `observed` keys (one per object; an object may name several slots) against the `expected` slots. */
export function countSlots(expected: readonly string[], observed: readonly string[]): SlotCount {
  const filled = new Map<string, number>(expected.map((key) => [key, 0]));
  let strays = 0;
  const examples: string[] = [];
  for (const key of observed) {
    const count = filled.get(key);
    if (count === undefined) {
      strays += 1;
      if (examples.length < 5) examples.push(`+${key}`);
    } else filled.set(key, count + 1);
  }
  let once = 0;
  let lost = 0;
  let duplicated = strays;
  for (const [key, count] of filled) {
    if (count === 1) once += 1;
    else if (count === 0) {
      lost += 1;
      if (examples.length < 5) examples.push(`-${key}`);
    } else {
      duplicated += count - 1;
      if (examples.length < 5) examples.push(`${key}×${count}`);
    }
  }
  return { expected: filled.size, once, lost, duplicated, examples };
}
