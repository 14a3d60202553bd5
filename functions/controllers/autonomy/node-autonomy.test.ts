import assert from "node:assert/strict";
import { test } from "node:test";
import { autonomyOf, cacheFailed, notReadySince, periodRunOut } from "./node-autonomy.ts";
import { poolDown, poolOf } from "./pools.ts";
import { node } from "./testing.ts";

const D = "node.openyurt.io/autonomy-duration";

test("autonomy: the duration first, then the deprecated annotations; only edge nodes", () => {
  assert.deepEqual(autonomyOf(node("n", { annotations: { [D]: "100s" } })), { kind: "on", seconds: 100, source: "duration" });
  assert.deepEqual(autonomyOf(node("n", { annotations: { [D]: "0s" } })), { kind: "on", seconds: undefined, source: "duration" });
  assert.deepEqual(autonomyOf(node("n", { annotations: { [D]: "500ms" } })), { kind: "on", seconds: 1, source: "duration" });
  assert.deepEqual(autonomyOf(node("n", { annotations: { "node.beta.openyurt.io/autonomy": "true" } })), { kind: "on", seconds: undefined, source: "deprecated" });
  assert.deepEqual(autonomyOf(node("n", { annotations: { "apps.openyurt.io/binding": "true" } })), { kind: "on", seconds: undefined, source: "deprecated" });
  assert.deepEqual(autonomyOf(node("n", { annotations: { "node.beta.openyurt.io/autonomy": "false" } })), { kind: "off" });
  assert.deepEqual(autonomyOf(node("n")), { kind: "off" });
  assert.deepEqual(autonomyOf(node("n", { edge: false, annotations: { [D]: "10m" } })), { kind: "not-edge" });
  const invalid = autonomyOf(node("n", { annotations: { [D]: "10 minutes", "node.beta.openyurt.io/autonomy": "true" } }));
  assert.equal(invalid.kind, "invalid", "a broken duration is not autonomous, whatever else the node says");
});

test("readiness, the period running out, and the cache", () => {
  const down = node("n", { ready: "Unknown", since: "2026-01-01T00:00:00Z", annotations: { [D]: "20s" } });
  assert.equal(notReadySince(down), Date.parse("2026-01-01T00:00:00Z"));
  assert.equal(periodRunOut(autonomyOf(down), down, Date.parse("2026-01-01T00:00:19Z")), false);
  assert.equal(periodRunOut(autonomyOf(down), down, Date.parse("2026-01-01T00:00:20Z")), true);
  const forever = node("n", { ready: "Unknown", annotations: { [D]: "0" } });
  assert.equal(periodRunOut(autonomyOf(forever), forever, Date.parse("2030-01-01T00:00:00Z")), false);
  assert.equal(notReadySince(node("n")), undefined);
  assert.equal(cacheFailed(node("n", { autonomy: "Unknown" })), true);
  assert.equal(cacheFailed(node("n", { autonomy: "True" })), false);
});

test("pools: the nodepool label, else the zone; down when every edge node of it is NotReady or unreachable", () => {
  const pool = (name: string, ready: "True" | "Unknown" | "False", labels: Record<string, string> = { "apps.openyurt.io/nodepool": "hangzhou" }): ReturnType<typeof node> => node(name, { ready, labels });
  assert.equal(poolOf(pool("a", "True")), "apps.openyurt.io/nodepool=hangzhou");
  assert.equal(poolOf(node("z", { labels: { "topology.kubernetes.io/zone": "hangzhou" } })), "topology.kubernetes.io/zone=hangzhou");
  assert.equal(poolOf(node("none")), undefined);
  const a = pool("a", "Unknown");
  assert.equal(poolDown(a, [a, pool("b", "False"), pool("other", "True", { "apps.openyurt.io/nodepool": "beijing" })]), true);
  assert.equal(poolDown(a, [a, pool("b", "True")]), false, "one node of the pool is up");
  assert.equal(poolDown(node("solo", { ready: "Unknown" }), []), false, "no pool, no pool outage");
  assert.equal(poolDown(a, [a]), false, "a pool of one is a node: its own duration applies");
  assert.equal(poolDown(node("c", { edge: false, ready: "Unknown", labels: { "apps.openyurt.io/nodepool": "cloud" } }), []), false, "cloud nodes are evicted as usual");
});
