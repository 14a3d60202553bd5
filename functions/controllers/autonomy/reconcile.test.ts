import assert from "node:assert/strict";
import { test } from "node:test";
import type { Decision } from "../../kit/controller.ts";
import type { KubeObject, ReconcileRequest } from "../../../protocol/index.ts";
import { applyMergePatch } from "../../kit/merge-patch.ts";
import { FakeCluster, actionsOf } from "../../kit/testing/index.ts";
import controller from "./controller.ts";
import { CACHE_FAILED, POOL_OUTAGE, reconcileNode } from "./reconcile.ts";
import { node, type NodeOptions } from "./testing.ts";

const D = "node.openyurt.io/autonomy-duration";
const NR = "node.kubernetes.io/not-ready";
const UR = "node.kubernetes.io/unreachable";
const ORIGINAL_NR = "apps.openyurt.io/original-not-ready-toleration-duration";
const ORIGINAL_UR = "apps.openyurt.io/original-unreachable-toleration-duration";
const DEFAULTS = [
  { key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  { key: UR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
];
const NOW = "2026-11-23T12:00:00.000Z";
const POOL = { "apps.openyurt.io/nodepool": "hangzhou" };

interface PodOptions {
  readonly nodeName?: string;
  readonly phase?: string;
  readonly owner?: string;
  readonly annotations?: Record<string, string>;
  readonly deleting?: boolean;
  readonly tolerations?: unknown[];
}

function pod(name: string, options: PodOptions = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      resourceVersion: "41",
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.owner ? { ownerReferences: [{ apiVersion: "apps/v1", kind: options.owner, name: "o", uid: "uid-o", controller: true }] } : {}),
      ...(options.deleting ? { deletionTimestamp: NOW } : {}),
    },
    spec: { nodeName: options.nodeName ?? "edge-1", containers: [{ name: "c" }], tolerations: structuredClone(options.tolerations ?? DEFAULTS) },
    status: { phase: options.phase ?? "Running" },
  } as KubeObject;
}

function edge(options: NodeOptions = {}, name = "edge-1"): KubeObject {
  const object = node(name, options);
  object.metadata.resourceVersion = "9";
  return object;
}

/** The node with its Autonomy condition at `status` since `since`. */
function withAutonomy(object: KubeObject, status: string, since: string): KubeObject {
  const next = structuredClone(object);
  const conditions = (next["status"] as { conditions: Record<string, unknown>[] }).conditions.filter((c) => c["type"] !== "Autonomy");
  conditions.push({ type: "Autonomy", status, reason: status === "Unknown" ? "cache failed" : "autonomy enabled successfully", message: status === "Unknown" ? "failed keys: pods/default/a" : "", lastTransitionTime: since });
  next["status"] = { conditions };
  return next;
}

/** The snapshot the relay would send of `parent` (or of a node gone), in a cluster holding it, its peers and the pods. */
function request(parent: KubeObject | null, pods: KubeObject[] = [], peers: KubeObject[] = parent ? [parent] : []): ReconcileRequest {
  const cluster = new FakeCluster();
  for (const object of [...peers.filter((peer) => peer.metadata.name !== parent?.metadata.name), ...(parent ? [parent] : []), ...pods]) cluster.put(object);
  return cluster.request(controller, { name: parent?.metadata.name ?? "gone", now: NOW });
}

/** The objects after the decision's patches, as the API server would store them. */
function patched(objects: readonly KubeObject[], decision: Decision): KubeObject[] {
  return objects.map((object) =>
    actionsOf(decision, "patch")
      .filter((action) => action.target.kind === object.kind && action.target.name === object.metadata.name)
      .reduce((current, action) => applyMergePatch(current, action.patch) as KubeObject, object),
  );
}

function secondsOf(object: KubeObject): (number | undefined)[] {
  return ((object["spec"] as { tolerations: { tolerationSeconds?: number }[] }).tolerations).map((t) => t.tolerationSeconds);
}

test("an autonomous node's pods get its seconds, at their resourceVersion; left alone: DaemonSet, mirror, finished, deleted, elsewhere", () => {
  const parent = edge({ annotations: { [D]: "100s" } });
  const pods = [
    pod("web"),
    pod("ds", { owner: "DaemonSet" }),
    pod("mirror", { annotations: { "kubernetes.io/config.mirror": "hash" } }),
    pod("done", { phase: "Succeeded" }),
    pod("failed", { phase: "Failed" }),
    pod("going", { deleting: true }),
    pod("pending", { phase: "Pending" }),
    pod("elsewhere", { nodeName: "edge-2" }),
  ];
  const decision = reconcileNode(request(parent, pods));
  assert.deepEqual(decision.actions.map((a) => [a.type, "target" in a ? a.target.name : ""]), [["patch", "web"], ["patch", "pending"]]);
  const [web] = actionsOf(decision, "patch");
  assert.equal(web?.resourceVersion, "41");
  assert.deepEqual(web?.target, { apiVersion: "v1", kind: "Pod", namespace: "default", name: "web", uid: "uid-web" });
  const after = patched(pods, decision);
  assert.deepEqual(secondsOf(after[0] as KubeObject), [100, 100]);
  assert.deepEqual(after[0]?.metadata.annotations, { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" });
  assert.equal(decision.requeueAfterSeconds, undefined, "a Ready node needs no look again");
  assert.deepEqual(reconcileNode(request(parent, after)).actions, [], "converged: nothing more to write");
});

test("the annotation removed: the originals are restored and their annotations removed", () => {
  const autonomous = edge({ annotations: { [D]: "0s" } });
  const [once] = patched([pod("web")], reconcileNode(request(autonomous, [pod("web")])));
  assert.ok(once);
  assert.deepEqual(secondsOf(once), [undefined, undefined]);
  const decision = reconcileNode(request(edge(), [once]));
  assert.deepEqual(actionsOf(decision, "patch")[0]?.patch, { metadata: { annotations: { [ORIGINAL_NR]: null, [ORIGINAL_UR]: null } }, spec: { tolerations: DEFAULTS } });
  const [restored] = patched([once], decision);
  assert.deepEqual(restored?.metadata.annotations, {});
});

test("a bad duration: not autonomous, one Warning Event per node and value", () => {
  const bad = (value: string): Decision => reconcileNode(request(edge({ annotations: { [D]: value } }), [pod("web")]));
  const decision = bad("10 minutes");
  assert.deepEqual(actionsOf(decision, "patch"), [], "the defaults stay");
  const [event] = actionsOf(decision, "event");
  assert.equal(event?.reason, "InvalidAutonomyDuration");
  assert.equal(event?.eventType, "Warning");
  assert.deepEqual(event?.target, { apiVersion: "v1", kind: "Node", name: "edge-1", uid: "uid-edge-1" });
  assert.ok(event?.message.includes(D) && event.message.includes('"10 minutes" is not a duration'), event?.message);
  assert.equal(event?.claim?.ttlSeconds, 86_400);
  const again = actionsOf(bad("10 minutes"), "event")[0]?.claim?.key;
  const other = actionsOf(bad("10 hours"), "event")[0]?.claim?.key;
  assert.equal(event?.claim?.key, again, "the same value: the same claim, so one Event");
  assert.notEqual(event?.claim?.key, other, "another value: another Event");
  assert.ok(event?.claim?.key.includes("uid-edge-1"));
});

test("a duration Go refuses as out of range (issue 28): no pod gets a tolerationSeconds from it, and a Warning Event names the annotation", () => {
  for (const value of ["9999999h", "99999999999999999999h"]) {
    const decision = reconcileNode(request(edge({ annotations: { [D]: value } }), [pod("web")]));
    assert.deepEqual(actionsOf(decision, "patch"), [], `${value}: the defaults stay`);
    const [event] = actionsOf(decision, "event");
    assert.equal(event?.reason, "InvalidAutonomyDuration", value);
    assert.ok(event?.message.startsWith(`${D}: `) && event.message.includes("out of range"), event?.message);
  }
});

test("the cache failing and back: one Event per transition, told only once the node's marker is written", () => {
  const failing = withAutonomy(edge(), "Unknown", "2026-01-01T00:05:00Z");
  const failed = reconcileNode(request(failing));
  assert.deepEqual(failed.actions.map((a) => a.type), ["patch", "event"]);
  const [mark] = actionsOf(failed, "patch");
  assert.deepEqual(mark?.patch, { metadata: { annotations: { [CACHE_FAILED]: "2026-01-01T00:05:00Z" } } });
  assert.equal(mark?.resourceVersion, "9");
  const [warning] = actionsOf(failed, "event");
  assert.equal(warning?.reason, "AutonomyCacheFailed");
  assert.equal(warning?.eventType, "Warning");
  assert.equal(warning?.ifPreviousApplied, true);
  assert.ok(warning?.message.includes("failed keys: pods/default/a"), warning?.message);
  assert.ok(warning?.claim?.key.includes("2026-01-01T00:05:00Z"), "claimed per transition");

  const [marked] = patched([failing], failed);
  assert.ok(marked);
  assert.deepEqual(reconcileNode(request(marked)).actions, [], "still failing: nothing new");

  const back = withAutonomy(marked, "True", "2026-01-01T00:10:00Z");
  const recovered = reconcileNode(request(back));
  assert.deepEqual(actionsOf(recovered, "patch")[0]?.patch, { metadata: { annotations: { [CACHE_FAILED]: null } } });
  const [normal] = actionsOf(recovered, "event");
  assert.equal(normal?.reason, "AutonomyCacheRecovered");
  assert.equal(normal?.eventType, "Normal");
  assert.equal(normal?.ifPreviousApplied, true);
  assert.ok(normal?.claim?.key.includes("2026-01-01T00:10:00Z"));

  assert.deepEqual(reconcileNode(request(edge({ autonomy: "True" }))).actions, [], "a cache that never failed: no Event");
  const noTime = reconcileNode(request(edge({ autonomy: "Unknown" })));
  assert.deepEqual(actionsOf(noTime, "patch")[0]?.patch, { metadata: { annotations: { [CACHE_FAILED]: NOW } } }, "no transition time: when it was seen");
});

test("a pool down as a whole: pods kept forever, the node marked once with a PoolOutage Event; a peer back: PoolRecovered", () => {
  const down = edge({ ready: "Unknown", labels: POOL, annotations: { [D]: "100s" } });
  const peerDown = edge({ ready: "False", labels: POOL }, "edge-2");
  const outage = reconcileNode(request(down, [pod("web")], [down, peerDown]));
  assert.deepEqual(outage.actions.map((a) => [a.type, "target" in a ? a.target.kind : ""]), [["patch", "Pod"], ["patch", "Node"], ["event", "Node"]]);
  const [markedNode, web] = patched([down, pod("web")], outage);
  assert.ok(markedNode && web);
  assert.deepEqual(secondsOf(web), [undefined, undefined]);
  assert.equal(markedNode.metadata.annotations?.[POOL_OUTAGE], NOW);
  const [event] = actionsOf(outage, "event");
  assert.equal(event?.reason, "PoolOutage");
  assert.equal(event?.eventType, "Warning");
  assert.equal(event?.ifPreviousApplied, true);
  assert.equal(event?.message, "every node of pool apps.openyurt.io/nodepool=hangzhou is NotReady or unreachable: its pods are kept and their endpoints stay until one node is back");
  assert.equal(outage.requeueAfterSeconds, 5);

  assert.deepEqual(reconcileNode(request(markedNode, [web], [markedNode, peerDown])).actions, [], "marked once");

  const peerUp = edge({ ready: "True", labels: POOL }, "edge-2");
  const recovered = reconcileNode(request(markedNode, [web], [markedNode, peerUp]));
  const [podPatch, nodePatch] = actionsOf(recovered, "patch");
  const [restoredWeb] = patched([web], { actions: podPatch ? [podPatch] : [] });
  assert.ok(restoredWeb);
  assert.deepEqual(secondsOf(restoredWeb), [100, 100], "the node's own duration again");
  assert.deepEqual(nodePatch?.patch, { metadata: { annotations: { [POOL_OUTAGE]: null } } });
  assert.equal(actionsOf(recovered, "event")[0]?.reason, "PoolRecovered");
  assert.equal(recovered.requeueAfterSeconds, 5, "the node itself is still NotReady");
});

test("both markers change in one node patch, each Event after it", () => {
  const down = withAutonomy(edge({ ready: "Unknown", labels: POOL, annotations: { [D]: "100s" } }), "Unknown", "2026-01-01T00:05:00Z");
  const peer = edge({ ready: "Unknown", labels: POOL }, "edge-2");
  const decision = reconcileNode(request(down, [], [down, peer]));
  assert.deepEqual(decision.actions.map((a) => (a.type === "event" ? a.reason : a.type)), ["patch", "PoolOutage", "AutonomyCacheFailed"]);
  assert.deepEqual(actionsOf(decision, "patch")[0]?.patch, { metadata: { annotations: { [POOL_OUTAGE]: NOW, [CACHE_FAILED]: "2026-01-01T00:05:00Z" } } });
  assert.ok(actionsOf(decision, "event").every((event) => event.ifPreviousApplied === true));
});

test("a look again in 5 s only while an edge node is NotReady", () => {
  assert.equal(reconcileNode(request(edge({ ready: "Unknown" }))).requeueAfterSeconds, 5);
  assert.equal(reconcileNode(request(edge({ ready: "False" }))).requeueAfterSeconds, 5);
  assert.equal(reconcileNode(request(edge())).requeueAfterSeconds, undefined);
  assert.equal(reconcileNode(request(edge({ edge: false, ready: "Unknown" }))).requeueAfterSeconds, undefined);
});

test("a node gone: nothing to decide", () => {
  assert.deepEqual(reconcileNode(request(null, [pod("web")])), { actions: [] });
});

test("a node's pod patches are independent: the relay may apply them 16 at a time", () => {
  const node = edge({ annotations: { [D]: "100s" } });
  assert.equal(reconcileNode(request(node, [pod("web")])).concurrency, 16);
});
