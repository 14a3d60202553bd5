import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { waitForObject } from "../../test/support/cluster-waits.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { controllerTaints, nodeLifecycle, notReadyConditions, silencedConditions } from "./nodelifecycle.ts";
import { readyCondition } from "./nodes.ts";
import { now } from "./runtime.ts";
import { NOT_READY, UNREACHABLE } from "./taints.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const NODE = { apiVersion: "v1", kind: "Node" };
const POD = { apiVersion: "v1", kind: "Pod" };
const AT = "2030-01-01T00:00:00Z";

function node(ready: "True" | "False" | "Unknown" | undefined, spec: Obj = {}, others: Obj[] = []): KubeObject {
  const conditions = [...(ready ? [readyCondition(ready, "2029-12-31T23:59:00Z")] : []), ...others];
  return { apiVersion: "v1", kind: "Node", metadata: { name: "n", creationTimestamp: "2029-01-01T00:00:00Z" }, spec, status: { conditions } } as KubeObject;
}

const keys = (taints: Obj[] | undefined): string[] => (taints ?? []).map((t) => `${String(t.key)}:${String(t.effect)}`);

test("taints: Unknown gives unreachable, False not-ready (NoSchedule and NoExecute, with timeAdded); True removes them", () => {
  assert.deepEqual(keys(controllerTaints(node("Unknown"), AT)), [`${UNREACHABLE}:NoSchedule`, `${UNREACHABLE}:NoExecute`]);
  assert.equal(controllerTaints(node(undefined), AT), undefined, "no Ready condition yet (the kubelet never posted): no taints until it is set Unknown");
  const notReady = controllerTaints(node("False"), AT);
  assert.deepEqual(keys(notReady), [`${NOT_READY}:NoSchedule`, `${NOT_READY}:NoExecute`]);
  assert.ok(notReady?.every((t) => t.timeAdded === AT));
  assert.equal(controllerTaints(node("True"), AT), undefined, "nothing to change");
  const tainted = [{ key: "example.com/mine", effect: "NoExecute" }, { key: UNREACHABLE, effect: "NoSchedule", timeAdded: "x" }, { key: UNREACHABLE, effect: "NoExecute", timeAdded: "x" }];
  assert.deepEqual(controllerTaints(node("True", { taints: tainted }), AT), [{ key: "example.com/mine", effect: "NoExecute" }], "others' taints stay");
});

test("taints: moving between False and Unknown swaps not-ready and unreachable; pressure conditions and unschedulable add theirs", () => {
  const unreachable = controllerTaints(node("Unknown"), "t1") ?? [];
  const swapped = controllerTaints(node("False", { taints: unreachable }), AT);
  assert.deepEqual(keys(swapped), [`${NOT_READY}:NoSchedule`, `${NOT_READY}:NoExecute`]);
  const back = controllerTaints(node("Unknown", { taints: swapped }), AT);
  assert.deepEqual(keys(back), [`${UNREACHABLE}:NoSchedule`, `${UNREACHABLE}:NoExecute`]);
  assert.equal(controllerTaints(node("Unknown", { taints: back }), AT), undefined, "stable");
  const pressured = controllerTaints(node("True", { unschedulable: true }, [{ type: "MemoryPressure", status: "True" }, { type: "DiskPressure", status: "False" }]), AT);
  assert.deepEqual(keys(pressured), ["node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"]);
});

test("a silent node: Ready and the pressure conditions Unknown, as tryUpdateNodeHealth words it; heartbeat kept", () => {
  const silent = node("True", {}, [{ type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory" }, { type: "NetworkUnavailable", status: "False" }]);
  const conditions = silencedConditions(silent, AT) ?? [];
  const ready = conditions.find((c) => c.type === "Ready");
  assert.deepEqual({ status: ready?.status, reason: ready?.reason, message: ready?.message, lastTransitionTime: ready?.lastTransitionTime, lastHeartbeatTime: ready?.lastHeartbeatTime }, { status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: AT, lastHeartbeatTime: "2029-12-31T23:59:00Z" });
  assert.equal(conditions.find((c) => c.type === "MemoryPressure")?.status, "Unknown");
  assert.equal(conditions.find((c) => c.type === "NetworkUnavailable")?.status, "False", "the control plane's condition is left alone");
  assert.equal(silencedConditions({ ...silent, status: { conditions } } as KubeObject, AT), undefined, "already Unknown");
  const never = silencedConditions(node(undefined), AT)?.[0];
  assert.deepEqual([never?.status, never?.reason, never?.message, never?.lastHeartbeatTime], ["Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.", "2029-01-01T00:00:00Z"]);
});

test("MarkPodsNotReady: only the Ready condition goes False, its reason and message kept; a pod without one or already False is left", () => {
  const conditions = [
    { type: "Initialized", status: "True" },
    { type: "Ready", status: "True", lastTransitionTime: "t0" },
    { type: "ContainersReady", status: "True" },
  ];
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status: { conditions } } as KubeObject;
  assert.deepEqual(notReadyConditions(pod, AT), [conditions[0], { type: "Ready", status: "False", lastTransitionTime: AT }, conditions[2]]);
  assert.equal(notReadyConditions({ ...pod, status: { conditions: [{ type: "Ready", status: "False", reason: "ContainersNotReady" }] } } as KubeObject, AT), undefined);
  assert.equal(notReadyConditions({ ...pod, status: {} } as KubeObject, AT), undefined);
});

test("the controller: a Ready=False node gets not-ready taints and keeps its pods Ready; gone silent, Unknown, unreachable taints, pods not Ready, Events", async () => {
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "Node", metadata: { name: "n" }, spec: {}, status: { conditions: [readyCondition("True", now())] } } as KubeObject);
  await cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { nodeName: "n", containers: [{ name: "c", image: "i" }] } } as KubeObject);
  await cluster.patch(POD, "default", "p", { status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2029-01-01T00:00:00Z" }, { type: "ContainersReady", status: "True" }] } }, "merge", { subresource: "status" });
  // A kubelet reporting NotReady, heartbeat fresh.
  await cluster.patch(NODE, undefined, "n", { status: { conditions: [{ ...readyCondition("False", now()), reason: "KubeletNotReady", message: "container runtime network not ready" }] } }, "merge", { subresource: "status" });
  // Heartbeats are whole seconds: a grace of 2 s leaves the first passes (every 0.5 s) inside it.
  const controller = nodeLifecycle({ nodeGraceSeconds: 2, heartbeatSeconds: 1, nodes: [] });
  controller.start(cluster);
  try {
    const notReady = (await waitForObject(cluster, NODE, undefined, "n", (n: Obj) => keys(n.spec.taints).includes(`${NOT_READY}:NoExecute`))) as Obj;
    assert.deepEqual(keys(notReady.spec.taints), [`${NOT_READY}:NoSchedule`, `${NOT_READY}:NoExecute`]);
    assert.equal(((await cluster.get(POD, "default", "p")) as Obj).status.conditions[0].status, "True", "a kubelet's own NotReady does not mark its pods");
    // No more heartbeats: Unknown after the grace period, and the taints swap.
    const unknown = (await waitForObject(cluster, NODE, undefined, "n", (n: Obj) => keys(n.spec.taints).includes(`${UNREACHABLE}:NoExecute`))) as Obj;
    assert.deepEqual(keys(unknown.spec.taints), [`${UNREACHABLE}:NoSchedule`, `${UNREACHABLE}:NoExecute`]);
    assert.equal(unknown.status.conditions[0].status, "Unknown");
    assert.equal(((await cluster.get(POD, "default", "p")) as Obj).status.conditions[0].status, "True", "False → Unknown is no Ready → NotReady transition");
    // Ready again, then silent again: that transition marks the pod.
    await cluster.patch(NODE, undefined, "n", { status: { conditions: [readyCondition("True", now())] } }, "merge", { subresource: "status" });
    await waitForObject(cluster, NODE, undefined, "n", (n: Obj) => n.spec.taints === undefined);
    const pod = (await waitForObject(cluster, POD, "default", "p", (p: Obj) => p.status.conditions[0].status === "False")) as Obj;
    assert.deepEqual(pod.status.conditions[1], { type: "ContainersReady", status: "True" }, "only Ready changes");
    const events = ((await cluster.list({ apiVersion: "v1", kind: "Event" }, { namespace: "default" })).items as Obj[]).map((e) => `${e.involvedObject.kind} ${e.type} ${e.reason}: ${e.message}`);
    assert.ok(events.includes("Node Normal NodeNotReady: Node n status is now: NodeNotReady"), events.join("\n"));
    assert.ok(events.includes("Pod Warning NodeNotReady: Node is not ready"), events.join("\n"));
  } finally {
    await controller.stop();
  }
});
