import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import { WebhookSpec } from "../../../protocol/index.ts";
import { podWebhook, podWebhookSpec } from "./pod-webhook.ts";
import { node } from "./testing.ts";
import { admissionRequest, patchOf } from "../../kit/testing/index.ts";

const D = "node.openyurt.io/autonomy-duration";
const NR = "node.kubernetes.io/not-ready";
const UR = "node.kubernetes.io/unreachable";
const DEFAULTS = [
  { key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  { key: UR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
];
const POOL = { "apps.openyurt.io/nodepool": "hangzhou" };

function pod(nodeName: string | undefined, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default", ...(annotations ? { annotations } : {}) },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c" }], tolerations: structuredClone(DEFAULTS) },
  } as KubeObject;
}

function review(object: KubeObject, nodes: KubeObject[], operation: "CREATE" | "UPDATE" = "CREATE"): AdmissionResponse {
  const request = admissionRequest({ group: "", version: "v1", kind: "Pod", resource: "pods", namespace: "default", operation, object });
  return podWebhook.review(request, { "Node.v1": nodes }, Date.parse("2026-11-23T12:00:00Z"));
}

test("declared: mutating, pods CREATE, Ignore, 3 s, system namespaces and unbound pods never sent", () => {
  const spec = WebhookSpec.parse(podWebhookSpec);
  assert.equal(spec.name, "autonomy-pods");
  assert.equal(spec.type, "mutating");
  assert.equal(spec.failurePolicy, "Ignore");
  assert.equal(spec.timeoutSeconds, 3);
  assert.deepEqual(spec.rules, [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }]);
  assert.deepEqual(spec.namespaceSelector?.matchExpressions?.[0]?.values, ["kube-system", "kube-node-lease", "edgeloop"]);
  assert.deepEqual(spec.onlyWhen, ["object.spec.nodeName"]);
});

test("a pod created bound to an autonomous node gets the node's seconds and keeps its originals", () => {
  const response = review(pod("edge-1"), [node("edge-1", { annotations: { [D]: "10m" } })]);
  assert.deepEqual(patchOf(response), [
    { op: "add", path: "/spec/tolerations", value: DEFAULTS.map((t) => ({ ...t, tolerationSeconds: 600 })) },
    { op: "add", path: "/metadata/annotations", value: { "apps.openyurt.io/original-not-ready-toleration-duration": "300", "apps.openyurt.io/original-unreachable-toleration-duration": "300" } },
  ]);
});

test("a pod created on a node of a pool that is down as a whole gets no seconds (forever)", () => {
  const nodes = [node("edge-1", { ready: "Unknown", labels: POOL, annotations: { [D]: "10m" } }), node("edge-2", { ready: "Unknown", labels: POOL })];
  const [tolerations] = patchOf(review(pod("edge-1"), nodes)) as [{ value: Record<string, unknown>[] }];
  assert.deepEqual(tolerations.value, DEFAULTS.map(({ tolerationSeconds: _, ...t }) => t));
});

test("admitted as it is: unbound, node not found, not autonomous, a mirror pod, not a CREATE", () => {
  const autonomous = node("edge-1", { annotations: { [D]: "10m" } });
  const plain = { uid: "req-1", allowed: true };
  assert.deepEqual(review(pod(undefined), [autonomous]), plain);
  assert.deepEqual(review(pod("edge-9"), [autonomous]), plain);
  assert.deepEqual(review(pod("edge-1"), [node("edge-1")]), plain);
  assert.deepEqual(review(pod("edge-1"), [node("edge-1", { edge: false, annotations: { [D]: "10m" } })]), plain);
  assert.deepEqual(review(pod("edge-1", { "kubernetes.io/config.mirror": "hash" }), [autonomous]), plain);
  assert.deepEqual(review(pod("edge-1"), [autonomous], "UPDATE"), plain);
});
