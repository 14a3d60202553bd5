import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { crashLooping, endpointFacts, keepContext, keepsReady, type EndpointFacts } from "./keep-ready.ts";
import { node, type NodeOptions } from "./testing.ts";

const D = "node.openyurt.io/autonomy-duration";
const POOL = "apps.openyurt.io/nodepool";
const SINCE = "2026-01-01T00:00:00Z";
const T0 = Date.parse(SINCE);
const MINUTE = 60_000;

/** A pod in `default`, its status as given. */
function pod(name: string, status: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", ...metadata }, status } as KubeObject;
}

/** node1, down (unreachable) since T0, autonomous for `duration` unless options say otherwise. */
function down(duration = "10m", options: NodeOptions = {}): KubeObject {
  return node("node1", { ready: "Unknown", since: SINCE, annotations: { [D]: duration }, ...options });
}

const ENDPOINT: EndpointFacts = { nodeName: "node1", targetRef: { kind: "Pod", name: "pod1", namespace: "default" } };
const running = pod("pod1", { containerStatuses: [{ name: "app", state: { running: {} } }] });

function kept(nodes: readonly KubeObject[], pods: readonly KubeObject[] = [running], now = T0 + MINUTE, endpoint: EndpointFacts = ENDPOINT): boolean {
  return keepsReady(endpoint, { nodes, pods, now });
}

test("kept: a pod's endpoint on an autonomous edge node that is down, within its period", () => {
  assert.equal(kept([down()]), true);
  assert.equal(kept([down("10m", { ready: "False" })]), true, "NotReady as well as unreachable");
  assert.equal(kept([down("0")], [running], T0 + 365 * 24 * 60 * MINUTE), true, '"0" is forever');
  assert.equal(kept([node("node1", { ready: "Unknown", since: SINCE, annotations: { "node.beta.openyurt.io/autonomy": "true" } })], [running], T0 + 365 * 24 * 60 * MINUTE), true, "deprecated annotations are forever");
});

test("not kept while the node is Ready: the pod's own readiness decides (upstream flipped failing pods on healthy nodes)", () => {
  assert.equal(kept([node("node1", { annotations: { [D]: "10m" } })]), false);
  assert.equal(kept([node("node1", { annotations: { "apps.openyurt.io/binding": "true" } })]), false);
});

test("not kept: a node that is not an edge node, not autonomous, invalid, or not found", () => {
  assert.equal(kept([down("10m", { edge: false })]), false, "the edge label is required (upstream ignored it)");
  assert.equal(kept([node("node1", { ready: "Unknown", since: SINCE })]), false);
  assert.equal(kept([down("10 minutes")]), false);
  assert.equal(kept([down("")]), false);
  assert.equal(kept([]), false);
  assert.equal(kept([node("node3", { ready: "Unknown", since: SINCE, annotations: { [D]: "10m" } })]), false);
});

test("the period running out: not kept once the node has been down for the duration", () => {
  assert.equal(kept([down("10m")], [running], T0 + 10 * MINUTE - 1), true);
  assert.equal(kept([down("10m")], [running], T0 + 10 * MINUTE), false);
  const unknownSince = node("node1", { ready: "Unknown", since: "not a time", annotations: { [D]: "10m" } });
  assert.equal(kept([unknownSince]), false, "an unknown start counts as run out");
});

test("a whole pool down: kept past the period until one of its nodes comes back", () => {
  const labels = { [POOL]: "hangzhou" };
  const node1 = down("10m", { labels });
  const late = T0 + 60 * MINUTE;
  assert.equal(kept([node1, node("node2", { ready: "False", labels })], [running], late), true);
  assert.equal(kept([node1, node("node2", { ready: "True", labels })], [running], late), false);
  assert.equal(kept([down("10m"), node("node2", { ready: "False" })], [running], late), false, "no pool, no pool outage");
  assert.equal(kept([down("", { labels }), node("node2", { ready: "False", labels })], [running], late), false, "a pool outage does not make a node autonomous");
});

test("not kept: terminating, no nodeName, no targetRef, a targetRef that is not a Pod", () => {
  assert.equal(kept([down()], [running], T0 + MINUTE, { ...ENDPOINT, terminating: true }), false);
  assert.equal(kept([down()], [running], T0 + MINUTE, { targetRef: ENDPOINT.targetRef }), false);
  assert.equal(kept([down()], [running], T0 + MINUTE, { nodeName: "", targetRef: ENDPOINT.targetRef }), false);
  assert.equal(kept([down()], [running], T0 + MINUTE, { nodeName: "node1" }), false);
  assert.equal(kept([down()], [running], T0 + MINUTE, { nodeName: "node1", targetRef: { kind: "Node", name: "node1" } }), false);
  assert.equal(kept([down()], [running], T0 + MINUTE, { nodeName: "node1", targetRef: { kind: "Pod" } }), false);
});

test("the pod: crash-looping or being deleted is not kept; running, without statuses or not found is", () => {
  const crash = { state: { waiting: { reason: "CrashLoopBackOff" } } };
  assert.equal(kept([down()], [pod("pod1", { containerStatuses: [{ state: { running: {} } }, crash] })]), false);
  assert.equal(kept([down()], [pod("pod1", { initContainerStatuses: [crash] })]), false, "a crash-looping init container: the pod never started");
  assert.equal(kept([down()], [pod("pod1", { containerStatuses: [{ state: { waiting: { reason: "ContainerCreating" } } }] })]), true);
  assert.equal(kept([down()], [pod("pod1", {}, { deletionTimestamp: SINCE })]), false, "a pod being deleted is terminating");
  assert.equal(kept([down()], [pod("pod1")]), true);
  assert.equal(kept([down()], []), true);
  assert.equal(kept([down()], [pod("pod1", { containerStatuses: [crash] }, { namespace: "other" })]), true, "a pod of another namespace is another pod");
});

test("crashLooping reads containerStatuses and initContainerStatuses", () => {
  assert.equal(crashLooping(pod("p", { containerStatuses: [{ state: { waiting: { reason: "CrashLoopBackOff" } } }] })), true);
  assert.equal(crashLooping(pod("p", { containerStatuses: [{ state: {} }] })), false);
  assert.equal(crashLooping(pod("p")), false);
  assert.equal(crashLooping({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }), false);
});

test("keepContext reads the kind keys Node.v1 and Pod.v1; endpointFacts reads a raw address", () => {
  const node1 = down();
  assert.deepEqual(keepContext({ "Node.v1": [node1], "Pod.v1": [running] }, 7), { nodes: [node1], pods: [running], now: 7 });
  assert.deepEqual(keepContext({}, 7), { nodes: [], pods: [], now: 7 });
  assert.deepEqual(endpointFacts({ ip: "10.0.0.1", nodeName: "node1", targetRef: { kind: "Pod", name: "pod1" } }, "default"), { nodeName: "node1", targetRef: { kind: "Pod", name: "pod1", namespace: "default" }, terminating: undefined });
  assert.deepEqual(endpointFacts({ ip: "10.0.0.1" }, "default", true), { nodeName: undefined, targetRef: undefined, terminating: true });
});
