import assert from "node:assert/strict";
import { test } from "node:test";
import { figuresToJsonLines, meetsTarget, mergeFigures, parseFigures, targetBound, type Figure } from "./figure.ts";

test("figures round-trip through JSON lines; a bad line is named", () => {
  const figures: Figure[] = [
    { bench: "sim", metric: "creates_per_second", value: 4210, unit: "1/s", target: ">= 3000" },
    { bench: "gang", metric: "pass_ms_100_groups", value: 2.1, unit: "ms", series: "pass_ms", x: 100, xUnit: "pending groups" },
  ];
  assert.deepEqual(parseFigures(`${figuresToJsonLines(figures)}\n\n`), figures);
  assert.throws(() => parseFigures(`${figuresToJsonLines(figures)}{"bench":"sim"}\n`), /line 3: not a figure/);
  assert.throws(() => parseFigures("> edgeloop@0.1.0 bench\n"), /line 1: not JSON/);
  assert.equal(figuresToJsonLines([]), "");
});

test("a run of some benches replaces their figures and keeps the others", () => {
  const old = [
    { bench: "sim", metric: "a", value: 1, unit: "ms" },
    { bench: "relay", metric: "b", value: 2, unit: "ms" },
  ];
  assert.deepEqual(mergeFigures(old, [{ bench: "sim", metric: "c", value: 3, unit: "ms" }]), [
    { bench: "relay", metric: "b", value: 2, unit: "ms" },
    { bench: "sim", metric: "c", value: 3, unit: "ms" },
  ]);
});

test("targets are compared as written; text that is no comparison is none", () => {
  assert.equal(meetsTarget(41, "<= 50"), true);
  assert.equal(meetsTarget(51, "<= 50"), false);
  assert.equal(meetsTarget(200, "< 200"), false);
  assert.equal(meetsTarget(4210, ">= 3,000"), true);
  assert.equal(meetsTarget(1, "= 1"), true);
  assert.equal(meetsTarget(0.99, "= 1"), false);
  assert.equal(meetsTarget(1, "within 1.5x of in-process"), undefined);
  assert.equal(meetsTarget(1, undefined), undefined);
  assert.equal(targetBound(">= 1000"), 1000);
  assert.equal(targetBound("fast"), undefined);
});
