import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { boundNodeOf, targetFor } from "./target.ts";
import { node } from "./testing.ts";

const D = "node.openyurt.io/autonomy-duration";
const POOL = { "apps.openyurt.io/nodepool": "hangzhou" };

test("an autonomous node's pods get its seconds; forever for 0 and for the deprecated annotations", () => {
  assert.deepEqual(targetFor(node("n", { annotations: { [D]: "10m" } }), []), { kind: "set", seconds: 600 });
  assert.deepEqual(targetFor(node("n", { annotations: { [D]: "0s" } }), []), { kind: "set", seconds: undefined });
  assert.deepEqual(targetFor(node("n", { annotations: { "node.beta.openyurt.io/autonomy": "true" } }), []), { kind: "set", seconds: undefined });
});

test("a node that is not autonomous, not an edge node, or carries a bad duration gets its pods restored", () => {
  assert.deepEqual(targetFor(node("n"), []), { kind: "restore" });
  assert.deepEqual(targetFor(node("n", { edge: false, annotations: { [D]: "10m" } }), []), { kind: "restore" });
  assert.deepEqual(targetFor(node("n", { annotations: { [D]: "ten minutes" } }), []), { kind: "restore" });
});

test("while the whole pool is down, forever; once a peer is back, the node's own seconds", () => {
  const down = node("a", { ready: "Unknown", labels: POOL, annotations: { [D]: "100s" } });
  const peerDown = node("b", { ready: "False", labels: POOL });
  const peerUp = node("b", { ready: "True", labels: POOL });
  const elsewhereUp = node("c", { labels: { "apps.openyurt.io/nodepool": "beijing" } });
  assert.deepEqual(targetFor(down, [down, peerDown, elsewhereUp]), { kind: "set", seconds: undefined });
  assert.deepEqual(targetFor(down, [down, peerUp]), { kind: "set", seconds: 100 });
  const ready = node("a", { labels: POOL, annotations: { [D]: "100s" } });
  assert.deepEqual(targetFor(ready, [ready, peerDown]), { kind: "set", seconds: 100 }, "a Ready node's pool is not down");
  const off = node("a", { ready: "Unknown", labels: POOL });
  assert.deepEqual(targetFor(off, [off, peerDown]), { kind: "restore" }, "a pool outage does not make a node autonomous");
});

test("the node a pod is bound to", () => {
  const pod = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec }) as KubeObject;
  assert.equal(boundNodeOf(pod({ nodeName: "n1" })), "n1");
  assert.equal(boundNodeOf(pod({ nodeName: "" })), undefined);
  assert.equal(boundNodeOf(pod({})), undefined);
});
