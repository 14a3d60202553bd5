/**
 * Upstream's toleration table (OpenYurt's pod binding controller and pod webhook) replayed
 * against the reconcile and the pod webhook, and one test per upstream defect on this
 * side. Each asserts what a pod or a response ends up as, written out.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionRequest, KubeObject } from "../../../protocol/index.ts";
import { applyMergePatch } from "../../kit/merge-patch.ts";
import { actionsOf } from "../../kit/testing/index.ts";
import { reviewNode } from "./node-webhook.ts";
import { reviewPod } from "./pod-webhook.ts";
import { reconcileNode } from "./reconcile.ts";
import { node, type NodeOptions } from "./testing.ts";

const D = "node.openyurt.io/autonomy-duration";
const NR = "node.kubernetes.io/not-ready";
const UR = "node.kubernetes.io/unreachable";
const ORIGINAL_NR = "apps.openyurt.io/original-not-ready-toleration-duration";
const ORIGINAL_UR = "apps.openyurt.io/original-unreachable-toleration-duration";
const NOW = "2026-11-23T12:00:00Z";

/** The tolerations of a pod with upstream's originals (300 s), or as given. */
function tolerations(notReady: number | undefined, unreachable: number | undefined): Record<string, unknown>[] {
  const one = (key: string, seconds: number | undefined): Record<string, unknown> => ({ key, operator: "Exists", effect: "NoExecute", ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) });
  return [one(NR, notReady), one(UR, unreachable)];
}

function pod(list: Record<string, unknown>[] = tolerations(300, 300), annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "pod1", namespace: "default", uid: "uid-pod1", resourceVersion: "3", ...(annotations ? { annotations } : {}) },
    spec: { nodeName: "node1", containers: [{ name: "c" }], tolerations: list },
    status: { phase: "Running" },
  } as KubeObject;
}

/** The pod after the controller's reconcile of `node1` (`undefined`: the node is not found). */
function reconciled(options: NodeOptions | undefined, before: KubeObject = pod()): KubeObject {
  const parent = options === undefined ? null : node("node1", options);
  const decision = reconcileNode({ controller: "autonomy", key: "node1", parent, children: { "Pod.v1": [before] }, related: { "Node.v1": parent ? [parent] : [] }, triggers: [], now: NOW });
  return actionsOf(decision, "patch").reduce((current, action) => applyMergePatch(current, action.patch) as KubeObject, before);
}

/** The pod as created through the webhook, its node `node1` built from `options` (`undefined`: not found). */
function admitted(options: NodeOptions | undefined, created: KubeObject = pod()): KubeObject {
  const request: AdmissionRequest = { uid: "u", kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, operation: "CREATE", object: created };
  const response = reviewPod(request, { "Node.v1": options === undefined ? [] : [node("node1", options)] });
  assert.equal(response.allowed, true);
  if (response.patch === undefined) return created;
  return applyJsonPatch(created, JSON.parse(atob(response.patch)) as { op: string; path: string; value?: unknown }[]);
}

/** Enough of RFC 6902 for the webhook's operations (add and remove at object members). */
function applyJsonPatch(object: KubeObject, operations: { op: string; path: string; value?: unknown }[]): KubeObject {
  const out = structuredClone(object) as Record<string, unknown>;
  for (const { op, path, value } of operations) {
    const segments = path.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = segments.pop() ?? "";
    const parent = segments.reduce((at, segment) => at[segment] as Record<string, unknown>, out);
    if (op === "add") parent[last] = value;
    else if (op === "remove") delete parent[last];
    else assert.fail(`unexpected op ${op}`);
  }
  return out as KubeObject;
}

function tolerationsOf(object: KubeObject): unknown {
  return (object["spec"] as { tolerations: unknown }).tolerations;
}

const WAYS = [
  ["controller", reconciled],
  ["webhook", admitted],
] as const;

for (const [way, apply] of WAYS) {
  test(`upstream table (${way}): "100s" → 100, originals kept as "300"`, () => {
    const after = apply({ annotations: { [D]: "100s" } });
    assert.deepEqual(tolerationsOf(after), tolerations(100, 100));
    assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" });
  });

  test(`upstream table (${way}): "0s" → no seconds (never evicted)`, () => {
    const after = apply({ annotations: { [D]: "0s" } });
    assert.deepEqual(tolerationsOf(after), tolerations(undefined, undefined));
    assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" });
  });

  test(`upstream table (${way}): annotation removed → restored`, () => {
    const autonomous = pod(tolerations(100, 100), { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" });
    const after = apply({}, autonomous);
    assert.deepEqual(tolerationsOf(after), tolerations(300, 300));
    assert.deepEqual(after.metadata.annotations ?? {}, {});
  });

  test(`upstream table (${way}): node not an edge node, or not found → no change`, () => {
    assert.deepEqual(apply({ edge: false, annotations: { [D]: "100s" } }), pod());
    assert.deepEqual(apply(undefined), pod());
  });

  test(`upstream defect (${way}): a toleration that already has no seconds is handled, not crashed on`, () => {
    const forever = pod(tolerations(undefined, 300));
    const after = apply({ annotations: { [D]: "100s" } }, forever);
    assert.deepEqual(tolerationsOf(after), tolerations(100, 100));
    assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "", [ORIGINAL_UR]: "300" }, '"" keeps "no seconds"');
    assert.deepEqual(tolerationsOf(reconciled({}, after)), tolerations(undefined, 300), "restored to no seconds, not to 0");
  });

  test(`upstream defect (${way}): "500ms" is 1 s, not 0 (evict at once)`, () => {
    assert.deepEqual(tolerationsOf(apply({ annotations: { [D]: "500ms" } })), tolerations(1, 1));
    assert.deepEqual(tolerationsOf(apply({ annotations: { [D]: "1500ms" } })), tolerations(2, 2));
  });
}

test("upstream defect: nothing refused the annotation while the cache failed; the node webhook does, saying why", () => {
  const request = (old: KubeObject): AdmissionRequest => ({
    uid: "u",
    kind: { group: "", version: "v1", kind: "Node" },
    resource: { group: "", version: "v1", resource: "nodes" },
    operation: "UPDATE",
    object: node("node1", { autonomy: "Unknown", annotations: { [D]: "10m" } }),
    oldObject: old,
  });
  const refused = reviewNode(request(node("node1", { autonomy: "Unknown" })));
  assert.equal(refused.allowed, false);
  assert.match(refused.status?.message ?? "", /node\.openyurt\.io\/autonomy-duration cannot be added or changed while the node's edge hub reports its cache failed \(condition Autonomy is Unknown \(failed keys: pods\/default\/a\)\)/);
  assert.equal(reviewNode(request(node("node1", { autonomy: "True" }))).allowed, true, "a healthy cache: allowed");
});

test("upstream defect: the cache-health Events honour autonomy-duration, not only the deprecated annotation", () => {
  const parent = node("node1", { autonomy: "Unknown", annotations: { [D]: "10m" } });
  const decision = reconcileNode({ controller: "autonomy", key: "node1", parent, children: { "Pod.v1": [] }, related: { "Node.v1": [parent] }, triggers: [], now: NOW });
  assert.deepEqual(actionsOf(decision, "event").map((e) => [e.eventType, e.reason]), [["Warning", "AutonomyCacheFailed"]]);
});
