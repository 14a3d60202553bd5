import assert from "node:assert/strict";
import { test } from "node:test";
import type { FaultJournalEntry } from "../../sim/faults/faults.ts";
import { retryEarliness } from "./retry-after.ts";

const entry = (at: number, name: string, wait: boolean): FaultJournalEntry => ({ at, rule: 1, method: "POST", path: "/api/v1/namespaces/a/pods", name, answer: wait ? { type: "status", code: 429, retryAfterSeconds: 2 } : undefined });

test("each 429's retry is the next request of the same name; one sooner than told is counted", () => {
  const journal = [entry(0, "p", true), entry(100, "q", false), entry(2_000, "p", false), entry(3_000, "r", true), entry(3_500, "r", false), entry(9_000, "s", true)];
  assert.deepEqual(retryEarliness(journal, 2_000), { retried: 2, soonestMs: 500, tooSoon: 1 });
  assert.deepEqual(retryEarliness([], 2_000), { retried: 0, soonestMs: 0, tooSoon: 0 });
});
