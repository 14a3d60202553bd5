import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionRequest, KubeObject } from "../../../protocol/index.ts";
import { WebhookSpec } from "../../../protocol/index.ts";
import { endpointSliceWebhook, readyOperations, reviewEndpointSlice } from "./endpointslice-webhook.ts";
import { node } from "./testing.ts";
import { admissionRequest, patchOf } from "../../kit/testing/index.ts";

const D = "node.openyurt.io/autonomy-duration";
const SINCE = "2026-01-01T00:00:00Z";
const NOW = Date.parse(SINCE) + 60_000;

const autonomous = node("node1", { ready: "Unknown", since: SINCE, annotations: { [D]: "10m" } });
const plain = node("node2", { ready: "Unknown", since: SINCE });
const related = { "Node.v1": [autonomous, plain] };
const context = { nodes: [autonomous, plain], pods: [], now: NOW };

function endpoint(nodeName: string, conditions: Record<string, boolean>, pod = "a"): Record<string, unknown> {
  return { addresses: ["10.0.0.1"], conditions, nodeName, targetRef: { kind: "Pod", name: pod, namespace: "default" } };
}

function slice(endpoints: unknown[]): KubeObject {
  return { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "svc-abc", namespace: "default" }, addressType: "IPv4", endpoints } as KubeObject;
}

function admission(object: KubeObject | undefined, operation: "CREATE" | "UPDATE" = "UPDATE"): AdmissionRequest {
  return admissionRequest({ group: "discovery.k8s.io", version: "v1", kind: "EndpointSlice", resource: "endpointslices", namespace: "default", operation, object });
}

test("spec: mutating on CREATE and UPDATE of discovery.k8s.io/v1 endpointslices, Ignore, 3 s, named autonomy-endpointslices", () => {
  const spec = WebhookSpec.parse(endpointSliceWebhook.spec);
  assert.equal(spec.name, "autonomy-endpointslices");
  assert.equal(spec.type, "mutating");
  assert.deepEqual(spec.rules, [{ operations: ["CREATE", "UPDATE"], apiGroups: ["discovery.k8s.io"], apiVersions: ["v1"], resources: ["endpointslices"] }]);
  assert.equal(spec.failurePolicy, "Ignore");
  assert.equal(spec.timeoutSeconds, 3);
});

test("a kept endpoint is set ready, and serving where it is set false; by index, the others untouched", () => {
  const response = reviewEndpointSlice(
    admission(slice([endpoint("node2", { ready: false, serving: false }), endpoint("node1", { ready: false, serving: false, terminating: false }), endpoint("node1", { ready: false })])),
    related,
    NOW,
  );
  assert.deepEqual(patchOf(response), [
    { op: "replace", path: "/endpoints/1/conditions/ready", value: true },
    { op: "replace", path: "/endpoints/1/conditions/serving", value: true },
    { op: "replace", path: "/endpoints/2/conditions/ready", value: true },
  ]);
});

test("ready absent (ready, per Kubernetes) or true: untouched, serving included", () => {
  assert.deepEqual(readyOperations(endpoint("node1", {}), 0, "default", context), []);
  assert.deepEqual(readyOperations(endpoint("node1", { ready: true, serving: false }), 0, "default", context), []);
  assert.deepEqual(readyOperations({ addresses: ["10.0.0.1"], nodeName: "node1", targetRef: { kind: "Pod", name: "a" } }, 0, "default", context), []);
});

test("a terminating endpoint is never changed, serving or not", () => {
  assert.deepEqual(readyOperations(endpoint("node1", { ready: false, serving: true, terminating: true }), 0, "default", context), []);
  assert.deepEqual(readyOperations(endpoint("node1", { ready: false, serving: false, terminating: true }), 0, "default", context), []);
});

test("nothing to change: a plain allow", () => {
  assert.deepEqual(reviewEndpointSlice(admission(slice([endpoint("node2", { ready: false })]), "CREATE"), related, NOW), { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpointSlice(admission(slice([])), related, NOW), { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpointSlice(admission({ apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "s" } }), related, NOW), { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpointSlice(admission(undefined), related, NOW), { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpointSlice(admission(slice(["junk", null])), related, NOW), { uid: "req-1", allowed: true });
});

test("the webhook measures the period with the relay's clock it is given", () => {
  const justDown = node("node1", { ready: "Unknown", since: new Date(NOW - 60_000).toISOString(), annotations: { [D]: "10m" } });
  const longDown = node("node1", { ready: "Unknown", since: new Date(NOW - 11 * 60_000).toISOString(), annotations: { [D]: "10m" } });
  const request = admission(slice([endpoint("node1", { ready: false })]));
  assert.equal(endpointSliceWebhook.review(request, { "Node.v1": [justDown] }, NOW).patchType, "JSONPatch");
  assert.equal(endpointSliceWebhook.review(request, { "Node.v1": [longDown] }, NOW).patch, undefined);
});
