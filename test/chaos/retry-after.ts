/** Whether the relay waited as `Retry-After` told it: from the sim's fault journal. */
import type { FaultJournalEntry } from "../../sim/faults/faults.ts";

/** How the retries after each answered 429 came: how many, the soonest (ms after the 429), and how many sooner than `retryAfterMs`. */
export interface RetryEarliness {
  readonly retried: number;
  readonly soonestMs: number;
  readonly tooSoon: number;
}

/**
 * For each request answered with a wait (a status with `retryAfterSeconds`), the next
 * request of the same method, path and name is its retry; it must come no sooner than
 * told (a 20 ms allowance for timer rounding).
 */
export function retryEarliness(journal: readonly FaultJournalEntry[], retryAfterMs: number): RetryEarliness {
  let retried = 0;
  let tooSoon = 0;
  let soonestMs = Number.POSITIVE_INFINITY;
  journal.forEach((entry, index) => {
    if (entry.answer?.type !== "status" || entry.answer.retryAfterSeconds === undefined) return;
    const retry = journal.slice(index + 1).find((next) => next.method === entry.method && next.path === entry.path && next.name === entry.name);
    if (!retry) return;
    retried += 1;
    const after = retry.at - entry.at;
    soonestMs = Math.min(soonestMs, after);
    if (after < retryAfterMs - 20) tooSoon += 1;
  });
  return { retried, soonestMs: retried === 0 ? 0 : soonestMs, tooSoon };
}
