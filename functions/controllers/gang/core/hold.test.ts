import assert from "node:assert/strict";
import { test } from "node:test";
import { holdingGroups, type HoldInput } from "./hold.ts";
import { gatherGroups } from "./queue.ts";
import { at, pod } from "./testing/build.ts";
import type { PodRecord } from "./records.ts";

/** The hold input of `pods` at second `now`, a 30 s window, every group numbered in key order. */
function input(pods: readonly PodRecord[], now: number, extra: Partial<HoldInput> = {}): HoldInput {
  const keys = [...new Set(pods.map((p) => p.group.key))].sort();
  const order = new Map(keys.map((key, i) => [key, i + 1]));
  const { provisional, complete } = gatherGroups(pods, { order });
  return { now: at(now), windowMs: 30_000, provisional, announced: [], firstSeen: new Map(), order, settled: new Set(complete.map((g) => g.key)), ...extra };
}

test("a group short of pods holds its place with stand-ins of its largest pod, until the window after its first sign", () => {
  const pods = [pod("a", { group: "g", size: 3, cpu: "1", created: 0 }), pod("b", { group: "g", size: 3, cpu: "2", created: 1 })];
  const [hold] = holdingGroups(input(pods, 10));
  assert.deepEqual(hold && [hold.key, hold.have, hold.size, hold.seq, hold.until], ["default/g", 2, 3, 1, at(30)]);
  assert.deepEqual(hold?.pods.map((p) => [p.uid, p.request.cpu]), [["uid-a", 1000], ["uid-b", 2000], ["default/g#0", 2000]]);
  assert.deepEqual(holdingGroups(input(pods, 30)), [], "the window is over");
  assert.deepEqual(holdingGroups(input(pods, 10, { firstSeen: new Map([["default/g", at(-40)]]) })), [], "first seen long ago");
});

test("a Job's template announces its group before any pod: stand-ins of the template; a complete or started group holds nothing", () => {
  const template = pod("job-template", { group: "t", size: 2, cpu: "4" });
  const announced = [{ key: "default/t", size: 2, template, createdAt: at(0) }];
  const [hold] = holdingGroups(input([], 5, { announced, order: new Map([["default/t", 7]]) }));
  assert.deepEqual(hold && [hold.key, hold.have, hold.size, hold.seq, hold.pods.length, hold.pods[0]?.request.cpu], ["default/t", 0, 2, 7, 2, 4000]);
  assert.deepEqual(holdingGroups(input([], 5, { announced, order: new Map([["default/t", 7]]), settled: new Set(["default/t"]) })), []);
  assert.deepEqual(holdingGroups(input([], 5, { announced })), [], "not numbered: nothing to hold a place in");
});
