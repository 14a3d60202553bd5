import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionRequest, KubeObject } from "../../../protocol/index.ts";
import { WebhookSpec } from "../../../protocol/index.ts";
import { endpointsWebhook, remapEndpoints, reviewEndpoints } from "./endpoints-webhook.ts";
import { node } from "./testing.ts";
import { admissionRequest, patchOf } from "../../kit/testing/index.ts";

const D = "node.openyurt.io/autonomy-duration";
const SINCE = "2026-01-01T00:00:00Z";
const NOW = Date.parse(SINCE) + 60_000;

const autonomous = node("node1", { ready: "Unknown", since: SINCE, annotations: { [D]: "10m" } });
const plain = node("node2", { ready: "Unknown", since: SINCE });
const related = { "Node.v1": [autonomous, plain] };

function address(ip: string, nodeName: string, pod: string): Record<string, unknown> {
  return { ip, nodeName, targetRef: { kind: "Pod", name: pod, namespace: "default" } };
}

function endpoints(subsets: unknown[]): KubeObject {
  return { apiVersion: "v1", kind: "Endpoints", metadata: { name: "svc", namespace: "default" }, subsets } as KubeObject;
}

function admission(object: KubeObject | undefined, operation: "CREATE" | "UPDATE" = "UPDATE"): AdmissionRequest {
  return admissionRequest({ group: "", version: "v1", kind: "Endpoints", resource: "endpoints", namespace: "default", operation, object });
}

const ports = [{ name: "http", port: 80, protocol: "TCP" }];

test("spec: mutating on CREATE and UPDATE of core v1 endpoints, Ignore, 3 s, named autonomy-endpoints", () => {
  const spec = WebhookSpec.parse(endpointsWebhook.spec);
  assert.equal(spec.name, "autonomy-endpoints");
  assert.equal(spec.type, "mutating");
  assert.deepEqual(spec.rules, [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["endpoints"] }]);
  assert.equal(spec.failurePolicy, "Ignore");
  assert.equal(spec.timeoutSeconds, 3);
});

test("kept addresses move to addresses, the others stay, ports and other subsets untouched", () => {
  const kept = address("10.0.0.1", "node1", "a");
  const other = address("10.0.0.2", "node2", "b");
  const ready = address("10.0.0.3", "node2", "c");
  const untouched = { addresses: [ready], ports: [{ port: 9090 }] };
  const response = reviewEndpoints(admission(endpoints([{ addresses: [ready], notReadyAddresses: [kept, other], ports }, untouched])), related, NOW);
  assert.deepEqual(patchOf(response), [{ op: "replace", path: "/subsets", value: [{ addresses: [ready, kept], notReadyAddresses: [other], ports }, untouched] }]);
});

test("a subset without addresses gets them; an emptied notReadyAddresses is left out", () => {
  const kept = address("10.0.0.1", "node1", "a");
  const response = reviewEndpoints(admission(endpoints([{ notReadyAddresses: [kept], ports }]), "CREATE"), related, NOW);
  assert.deepEqual(patchOf(response), [{ op: "replace", path: "/subsets", value: [{ addresses: [kept], ports }] }]);
});

test("a targetRef without a namespace is the Endpoints' own namespace", () => {
  const crashing = { apiVersion: "v1", kind: "Pod", metadata: { name: "a", namespace: "default" }, status: { containerStatuses: [{ state: { waiting: { reason: "CrashLoopBackOff" } } }] } } as KubeObject;
  const subsets = [{ notReadyAddresses: [{ ip: "10.0.0.1", nodeName: "node1", targetRef: { kind: "Pod", name: "a" } }], ports }];
  assert.equal(remapEndpoints(endpoints(subsets), { nodes: [autonomous], pods: [crashing], now: NOW }), undefined);
});

test("nothing to move: a plain allow, no patch", () => {
  const response = reviewEndpoints(admission(endpoints([{ notReadyAddresses: [address("10.0.0.2", "node2", "b")], ports }])), related, NOW);
  assert.deepEqual(response, { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpoints(admission(endpoints([])), related, NOW), { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpoints(admission({ apiVersion: "v1", kind: "Endpoints", metadata: { name: "svc" } }), related, NOW), { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpoints(admission(undefined), related, NOW), { uid: "req-1", allowed: true });
  assert.deepEqual(reviewEndpoints(admission(endpoints([{ notReadyAddresses: "junk" }, "junk"])), related, NOW), { uid: "req-1", allowed: true });
});

test("the webhook measures the period with the relay's clock it is given", () => {
  const justDown = node("node1", { ready: "Unknown", since: new Date(NOW - 60_000).toISOString(), annotations: { [D]: "10m" } });
  const longDown = node("node1", { ready: "Unknown", since: new Date(NOW - 11 * 60_000).toISOString(), annotations: { [D]: "10m" } });
  const request = admission(endpoints([{ notReadyAddresses: [address("10.0.0.1", "node1", "a")], ports }]));
  assert.equal(endpointsWebhook.review(request, { "Node.v1": [justDown] }, NOW).patchType, "JSONPatch");
  assert.equal(endpointsWebhook.review(request, { "Node.v1": [longDown] }, NOW).patch, undefined);
});
