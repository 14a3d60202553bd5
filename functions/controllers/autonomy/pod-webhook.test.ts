import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import { WebhookSpec } from "../../../protocol/index.ts";
import { forwards } from "../../../protocol/snapshot/admission-gate.ts";
import type { RelatedCaches } from "../../../protocol/snapshot/caches.ts";
import { relatedObjects } from "../../../protocol/snapshot/related.ts";
import { ORIGINAL_NOT_READY, ORIGINAL_UNREACHABLE } from "./names.ts";
import { podWebhook, podWebhookSpec } from "./pod-webhook.ts";
import { node } from "./testing.ts";
import { admissionRequest, patchOf } from "../../kit/testing/index.ts";
import { StoreView } from "../../kit/testing/store-view.ts";

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

test("declared: mutating, pods CREATE, Ignore, 3 s, system namespaces and unbound pods never sent, nor pods of other nodes without kept originals", () => {
  const spec = WebhookSpec.parse(podWebhookSpec);
  assert.equal(spec.name, "autonomy-pods");
  assert.equal(spec.type, "mutating");
  assert.equal(spec.failurePolicy, "Ignore");
  assert.equal(spec.timeoutSeconds, 3);
  assert.deepEqual(spec.rules, [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }]);
  assert.deepEqual(spec.namespaceSelector?.matchExpressions?.[0]?.values, ["kube-system", "kube-node-lease", "edgeloop"]);
  assert.deepEqual(spec.onlyWhen, ["object.spec.nodeName"]);
  assert.deepEqual(spec.forwardWhen, [
    { found: { apiVersion: "v1", kind: "Node", namedBy: ["object.spec.nodeName"], selector: { matchLabels: { "openyurt.io/is-edge-worker": "true" } }, sameNamespace: false } },
    { path: "object.metadata.annotations", hasKey: ["apps.openyurt.io/original-not-ready-toleration-duration", "apps.openyurt.io/original-unreachable-toleration-duration"] },
  ]);
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

/** The relay's caches of `nodes`, as its admission gate and the webhook's `related` read them. */
function cachesOf(nodes: readonly KubeObject[]): RelatedCaches {
  const view = new StoreView(false, nodes);
  return (kind) => (kind.kind === "Node" ? view : undefined);
}

/** Whether the relay forwards the creation of `object` to the Worker, and what the webhook answers it with the related objects the relay would send. */
function throughRelay(object: KubeObject, nodes: readonly KubeObject[]): { forwarded: boolean; answer: AdmissionResponse } {
  const spec = WebhookSpec.parse(podWebhookSpec);
  const request = admissionRequest({ group: "", version: "v1", kind: "Pod", resource: "pods", namespace: "default", operation: "CREATE", object });
  const caches = cachesOf(nodes);
  const related = relatedObjects(spec.related, { namespace: request.namespace, root: request }, caches);
  return { forwarded: forwards(spec, request, caches), answer: podWebhook.review(request, related, Date.parse("2026-11-23T12:00:00Z")) };
}

test("the relay keeps from the Worker a pod bound to a node that is not an edge node (a Sedna replacement on a cloud node), not an edge node's pod nor kept originals", () => {
  const nodes = [node("edge-1", { annotations: { [D]: "10m" } }), node("cloud", { edge: false })];
  assert.equal(throughRelay(pod("cloud"), nodes).forwarded, false);
  assert.equal(throughRelay(pod("edge-1"), nodes).forwarded, true);
  assert.equal(throughRelay(pod("edge-1"), [node("edge-1")]).forwarded, true, "an edge node that is not autonomous: its pods' kept originals are restored");
  const kept = throughRelay(pod("cloud", { [ORIGINAL_UNREACHABLE]: "300" }), nodes);
  assert.equal(kept.forwarded, true);
  assert.notDeepEqual(kept.answer, { uid: "req-1", allowed: true }, "the webhook restores them");
});

/** A node as the relay may cache it: edge or not, autonomous or not (or with a duration that does not parse), Ready or not, in a pool or not. */
const cachedNode = (name: string): fc.Arbitrary<KubeObject> =>
  fc
    .record({ edge: fc.boolean(), duration: fc.constantFrom(undefined, "10m", "0", "bogus"), beta: fc.boolean(), ready: fc.constantFrom("True" as const, "False" as const, "Unknown" as const), pool: fc.boolean() })
    .map(({ edge, duration, beta, ready, pool }) =>
      node(name, {
        edge,
        ready,
        annotations: { ...(duration === undefined ? {} : { [D]: duration }), ...(beta ? { "node.beta.openyurt.io/autonomy": "true" } : {}) },
        labels: pool ? POOL : {},
      }),
    );

/** A pod being created: bound to a cached node, an unknown one or none; kept originals, a mirror annotation, others or none; a DaemonSet's or not. */
const createdPod = fc
  .record({
    nodeName: fc.option(fc.constantFrom("edge-1", "edge-2", "cloud", "unknown"), { nil: undefined }),
    annotations: fc.option(fc.dictionary(fc.constantFrom(ORIGINAL_NOT_READY, ORIGINAL_UNREACHABLE, "kubernetes.io/config.mirror", "example.com/other"), fc.constantFrom("", "300", "x")), { nil: undefined }),
    tolerations: fc.array(fc.record({ key: fc.constantFrom(NR, UR, "other"), operator: fc.constantFrom("Exists", "Equal"), effect: fc.constantFrom("NoExecute", "NoSchedule"), tolerationSeconds: fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }) }), { maxLength: 3 }),
    daemonSet: fc.boolean(),
  })
  .map(({ nodeName, annotations, tolerations, daemonSet }): KubeObject => {
    const base = pod(nodeName, annotations);
    const owners = daemonSet ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: "ds", uid: "u", controller: true }] } : {};
    return { ...base, metadata: { ...base.metadata, ...owners }, spec: { ...(base["spec"] as object), tolerations } } as KubeObject;
  });

test("every pod creation the relay allows itself (onlyWhen, forwardWhen) is one the webhook allows as it is", () => {
  fc.assert(
    fc.property(fc.tuple(cachedNode("edge-1"), cachedNode("edge-2"), cachedNode("cloud")), createdPod, (nodes, object) => {
      const { forwarded, answer } = throughRelay(object, nodes);
      if (!forwarded) assert.deepEqual(answer, { uid: "req-1", allowed: true });
    }),
    { numRuns: 2_000 },
  );
});
