/**
 * Upstream's Endpoints and EndpointSlice webhook tables, replayed as real outcomes through
 * both webhooks (the patch applied, the address read back), with the node NotReady as
 * upstream's tables assumed; then one case per upstream defect of this side.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionRequest, AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import { reviewEndpoints } from "./endpoints-webhook.ts";
import { reviewEndpointSlice } from "./endpointslice-webhook.ts";
import { node, type NodeOptions } from "./testing.ts";

const D = "node.openyurt.io/autonomy-duration";
const BETA = "node.beta.openyurt.io/autonomy";
const BINDING = "apps.openyurt.io/binding";
const SINCE = "2026-01-01T00:00:00Z";
const T0 = Date.parse(SINCE);
const MINUTE = 60_000;

/** node1 (or another), down since T0: upstream's tables assumed a node that is not Ready. */
function node1(annotations: Record<string, string>, options: NodeOptions = {}, name = "node1"): KubeObject {
  return node(name, { ready: "Unknown", since: SINCE, annotations, ...options });
}

function pod(status: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "pod1", namespace: "default", ...metadata }, status } as KubeObject;
}

const running = pod({ containerStatuses: [{ name: "app", state: { running: {} } }] });
const crashLooping = pod({ containerStatuses: [{ name: "app", state: { running: {} } }, { name: "side", state: { waiting: { reason: "CrashLoopBackOff" } } }] });

/** One case: the cluster, the not-ready endpoint of pod1, and when. */
interface Case {
  readonly nodes: readonly KubeObject[];
  readonly pods?: readonly KubeObject[];
  readonly now?: number;
  readonly operation?: "CREATE" | "UPDATE";
  /** Leave out the endpoint's nodeName or targetRef. */
  readonly without?: "nodeName" | "targetRef";
  /** The pod is going away: the slice's endpoint says `terminating` (its pod as it was); for Endpoints, which have no such field, the pod has a deletionTimestamp. */
  readonly terminating?: boolean;
}

/** The endpoint's fields both kinds share. */
function reference(c: Case): Record<string, unknown> {
  return {
    ...(c.without === "nodeName" ? {} : { nodeName: "node1" }),
    ...(c.without === "targetRef" ? {} : { targetRef: { kind: "Pod", name: "pod1", namespace: "default" } }),
  };
}

function request(object: KubeObject, c: Case, resource: { group: string; resource: string; kind: string }): AdmissionRequest {
  const operation = c.operation ?? "UPDATE";
  return {
    uid: "req-1",
    kind: { group: resource.group, version: "v1", kind: resource.kind },
    resource: { group: resource.group, version: "v1", resource: resource.resource },
    namespace: "default",
    operation,
    object,
    ...(operation === "UPDATE" ? { oldObject: object } : {}),
  };
}

function related(c: Case, deleting = false): Record<string, readonly KubeObject[]> {
  const pods = c.pods ?? [running];
  return { "Node.v1": c.nodes, "Pod.v1": deleting ? pods.map((p) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: SINCE } })) : pods };
}

/** The object with the response's JSONPatch (`replace` operations only, as the webhooks send) applied. */
function patched(object: KubeObject, response: AdmissionResponse): Record<string, unknown> {
  assert.equal(response.allowed, true);
  const result = structuredClone(object) as Record<string, unknown>;
  if (response.patch === undefined) return result;
  for (const operation of JSON.parse(atob(response.patch)) as { op: string; path: string; value: unknown }[]) {
    assert.equal(operation.op, "replace");
    const keys = operation.path.split("/").slice(1);
    const last = keys.pop() ?? "";
    const parent = keys.reduce<Record<string, unknown>>((at, key) => at[key] as Record<string, unknown>, result);
    assert.ok(last in parent, `replace of an existing member: ${operation.path}`);
    parent[last] = operation.value;
  }
  return result;
}

/** Through the Endpoints webhook: is pod1's address ready afterwards? */
function viaEndpoints(c: Case): boolean {
  const address = { ip: "10.244.1.2", ...reference(c) };
  const object = { apiVersion: "v1", kind: "Endpoints", metadata: { name: "svc", namespace: "default" }, subsets: [{ notReadyAddresses: [address], ports: [{ port: 80 }] }] } as KubeObject;
  const result = patched(object, reviewEndpoints(request(object, c, { group: "", resource: "endpoints", kind: "Endpoints" }), related(c, c.terminating === true), c.now ?? T0 + MINUTE));
  const [subset] = result["subsets"] as { addresses?: unknown[]; notReadyAddresses?: unknown[]; ports: unknown }[];
  assert.deepEqual(subset?.ports, [{ port: 80 }], "ports kept");
  const ready = (subset?.addresses ?? []).some((a) => (a as { ip: string }).ip === "10.244.1.2");
  const notReady = (subset?.notReadyAddresses ?? []).some((a) => (a as { ip: string }).ip === "10.244.1.2");
  assert.notEqual(ready, notReady, "the address is in exactly one list");
  return ready;
}

/** Through the EndpointSlice webhook: is pod1's endpoint ready (and serving) afterwards? */
function viaEndpointSlice(c: Case): boolean {
  const conditions = { ready: false, serving: c.terminating === true, terminating: c.terminating === true };
  const object = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "svc-x", namespace: "default" }, addressType: "IPv4", endpoints: [{ addresses: ["10.244.1.2"], conditions, ...reference(c) }] } as KubeObject;
  const result = patched(object, reviewEndpointSlice(request(object, c, { group: "discovery.k8s.io", resource: "endpointslices", kind: "EndpointSlice" }), related(c), c.now ?? T0 + MINUTE));
  const [endpoint] = result["endpoints"] as { conditions: { ready: boolean; serving: boolean; terminating: boolean } }[];
  assert.equal(endpoint?.conditions.terminating, c.terminating === true, "terminating never changed");
  if (endpoint?.conditions.ready === true && c.terminating !== true) assert.equal(endpoint.conditions.serving, true, "a kept endpoint serves");
  return endpoint?.conditions.ready === true;
}

const SIDES = [
  ["Endpoints", viaEndpoints],
  ["EndpointSlice", viaEndpointSlice],
] as const;

/** Upstream's tables: the address of a not-ready pod on node1. */
const UPSTREAM: readonly (readonly [string, Case, boolean])[] = [
  ['duration "10m"', { nodes: [node1({ [D]: "10m" })] }, true],
  ['duration ""', { nodes: [node1({ [D]: "" })] }, false],
  ['old annotation "true"', { nodes: [node1({ [BETA]: "true" })] }, true],
  ['old annotation "false"', { nodes: [node1({ [BETA]: "false" })] }, false],
  ['binding "true"', { nodes: [node1({ [BINDING]: "true" })] }, true],
  ['binding "false"', { nodes: [node1({ [BINDING]: "false" })] }, false],
  ["no annotation", { nodes: [node1({})] }, false],
  ["the annotation on another node", { nodes: [node1({}), node1({ [D]: "10m" }, {}, "node3")] }, false],
  ["pod crash-looping (one container of two)", { nodes: [node1({ [D]: "10m" })], pods: [crashLooping] }, false],
  ["pod running", { nodes: [node1({ [D]: "10m" })], pods: [running] }, true],
  ["pod without container statuses", { nodes: [node1({ [D]: "10m" })], pods: [pod()] }, true],
  ["pod not found", { nodes: [node1({ [D]: "10m" })], pods: [] }, true],
];

/** Upstream's defects on this side, fixed. */
const DEFECTS: readonly (readonly [string, Case, boolean])[] = [
  ["CREATE is handled, not UPDATE only", { nodes: [node1({ [D]: "10m" })], operation: "CREATE" }, true],
  ["a node that is not an edge node is not kept", { nodes: [node1({ [D]: "10m" }, { edge: false })] }, false],
  ["the period running out: not kept once down for the duration", { nodes: [node1({ [D]: "10m" })], now: T0 + 10 * MINUTE }, false],
  ["the period not yet run out: kept", { nodes: [node1({ [D]: "10m" })], now: T0 + 10 * MINUTE - 1_000 }, true],
  ["a Ready node's not-ready pod is not flipped (its own readiness probe fails)", { nodes: [node1({ [D]: "10m" }, { ready: "True" })] }, false],
  ["a Ready node's not-ready pod is not flipped, autonomous forever", { nodes: [node1({ [BETA]: "true" }, { ready: "True" })] }, false],
  ["a terminating endpoint is untouched", { nodes: [node1({ [D]: "10m" })], terminating: true }, false],
  ["an endpoint without nodeName is untouched", { nodes: [node1({ [D]: "10m" })], without: "nodeName" }, false],
  ["an endpoint without targetRef is untouched", { nodes: [node1({ [D]: "10m" })], without: "targetRef" }, false],
];

for (const [side, outcome] of SIDES) {
  for (const [name, c, kept] of UPSTREAM) {
    test(`${side}, upstream's table: ${name} → ${kept ? "kept ready" : "not kept"}`, () => {
      assert.equal(outcome(c), kept);
    });
  }
  for (const [name, c, kept] of DEFECTS) {
    test(`${side}, upstream defect: ${name}`, () => {
      assert.equal(outcome(c), kept);
    });
  }
}
