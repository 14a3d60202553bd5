import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_BOUNDS, judgeGrowth, median, theilSen, type RssSample } from "./verdict.ts";

/** Samples every 10 s for `minutes`, of `mib(t)`. */
function series(minutes: number, mib: (t: number, i: number) => number): RssSample[] {
  return Array.from({ length: (minutes * 60) / 10 + 1 }, (_, i) => ({ t: i * 10, mib: mib(i * 10, i) }));
}

test("median and Theil–Sen", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(median([]), 0);
  assert.equal(theilSen([{ t: 0, mib: 10 }, { t: 10, mib: 20 }, { t: 20, mib: 30 }]), 1);
  // One outlier does not move it.
  assert.equal(theilSen([{ t: 0, mib: 10 }, { t: 10, mib: 11 }, { t: 20, mib: 90 }, { t: 30, mib: 13 }, { t: 40, mib: 14 }]), 1 / 10);
});

test("a flat process with a GC sawtooth is steady", () => {
  // 120 MiB, climbing 6 MiB over 40 s then collected back, for 10 minutes.
  const verdict = judgeGrowth(series(10, (_t, i) => 120 + (i % 5) * 1.5));
  assert.equal(verdict.outcome, "steady", JSON.stringify(verdict));
});

test("warm-up growth in the first half alone is steady", () => {
  const verdict = judgeGrowth(series(10, (t) => (t < 240 ? 60 + t / 4 : 120) + Math.sin(t) * 2));
  assert.equal(verdict.outcome, "steady", JSON.stringify(verdict));
});

test("a leak below the bound is steady", () => {
  assert.equal(judgeGrowth(series(10, (t, i) => 100 + t / 360 + (i % 4) * 2)).outcome, "steady");
});

test("a leak of 1 MiB a minute under a sawtooth grows", () => {
  const verdict = judgeGrowth(series(10, (t, i) => 100 + t / 60 + (i % 4) * 2));
  assert.equal(verdict.outcome, "grows", JSON.stringify(verdict));
  assert.ok(Math.abs(verdict.slopeMiBPerHour - 60) < 15, String(verdict.slopeMiBPerHour));
});

test("a slope fitted to noise with no rise of the level is steady; too few samples are not judged", () => {
  // One high sample at the very end: the slope projects far, the level of the last third does not move.
  const spike = judgeGrowth(series(2, (t) => (t === 120 ? 140 : 100 + (t % 20 === 0 ? 1 : 0))), { ...DEFAULT_BOUNDS, warmupSeconds: 0 });
  assert.equal(spike.outcome, "steady", JSON.stringify(spike));
  assert.equal(judgeGrowth(series(1, (t) => 100 + t)).outcome, "too-short");
  assert.equal(judgeGrowth(series(2, (t) => 100 + t)).outcome, "too-short", "all of a 2-minute run is warm-up");
  assert.equal(judgeGrowth(series(2, (t) => 100 + t), { ...DEFAULT_BOUNDS, warmupSeconds: 0 }).outcome, "grows");
  assert.equal(judgeGrowth([]).outcome, "too-short");
});
