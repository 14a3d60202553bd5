/**
 * A wall clock stepped either way (NTP, an operator) while the relay runs (issue 28,
 * finding 4): a deleted child still heals within a few seconds. The relay, the sim and
 * this test share a process here, so stepping `Date.now` steps all their wall clocks;
 * workerd's is not stepped, and ±120 s is inside the signature window (300 s). Before the
 * queue's clock was monotonic, a step back of 120 s held every key for ~120 s.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { waitForObject } from "../support/cluster-waits.ts";
import { testStack } from "./harness.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
const wall = Date.now;
let stack: Stack;

before(async () => {
  stack = await testStack();
  await stack.sim.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "stepped", namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { a: "1" } } as KubeObject);
  await waitForObject(stack.sim.cluster, CM, "default", "stepped-mirror");
});
after(async () => {
  Date.now = wall;
  await stack.stop();
});

for (const stepSeconds of [0, -120, 120, -240]) {
  test(`a wall clock stepped ${stepSeconds > 0 ? "+" : ""}${stepSeconds} s (from the last step): a deleted child heals within 5 s`, async () => {
    const offset = (Number(Date.now()) - wall()) + stepSeconds * 1000;
    Date.now = () => wall() + offset;
    const deleted = await stack.sim.cluster.get(CM, "default", "stepped-mirror");
    const started = performance.now();
    await stack.sim.cluster.delete(CM, "default", "stepped-mirror");
    await waitForObject(stack.sim.cluster, CM, "default", "stepped-mirror", (child) => child.metadata.uid !== deleted.metadata.uid, 10_000);
    const healedMs = performance.now() - started;
    assert.ok(healedMs < 5_000, `healed in ${Math.round(healedMs)} ms`);
  });
}
