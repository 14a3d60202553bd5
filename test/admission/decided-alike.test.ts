/**
 * ADR 0034: the webhooks declared `decidedAt: relay` run in two places, the relay (on its
 * caches, for the cluster's own writes) and the Worker (for a relay built without them).
 * For any request and any cluster, both paths give the same AdmissionResponse: the
 * relay's `Admission` with the families' reviewers, and the same `Admission` forwarding,
 * through the Worker's admission route, to the same code.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { Manifest, type AdmissionReviewResponse, type KubeObject, type TypeRef } from "../../protocol/index.ts";
import { Admission } from "../../relay/front/admission.ts";
import { admissionRoute } from "../../functions/routes/admission.ts";
import { createRegistry } from "../../functions/registry.ts";
import { relayDecided } from "../../functions/relay-decided.ts";
import { loadControllers, loadRelayWebhooks } from "../../scripts/lib/controllers.ts";
import { FakeCache } from "../support/fake-cache.ts";
import { AUTONOMY_CONDITION, AUTONOMY_DURATION, EDGE_WORKER, NODE_POOL, ORIGINAL_NOT_READY, ORIGINAL_UNREACHABLE } from "../../functions/controllers/autonomy/names.ts";

const controllers = await loadControllers();
const registry = createRegistry(controllers);
const decided = relayDecided(await loadRelayWebhooks());
const manifest = Manifest.parse(registry.manifest);
const NOW = Date.parse("2026-12-07T12:00:00Z");

test("the autonomy family's Pod, Node, Endpoints and EndpointSlice webhooks are the ones the relay decides, and every webhook declared decidedAt: relay is one the relay has", () => {
  assert.deepEqual([...decided.keys()].sort(), ["autonomy-endpoints", "autonomy-endpointslices", "autonomy-nodes", "autonomy-pods"]);
  const specs = manifest.controllers.flatMap((c) => c.webhooks);
  assert.deepEqual(specs.filter((s) => s.decidedAt === "relay").map((s) => s.name).sort(), [...decided.keys()].sort());
});

const NODES = ["edge-1", "edge-2", "edge-3", "cloud-1"];
const durations = fc.constantFrom(undefined, "0", "10m", "1h30m", "-5s", "9999999h", "forever", "");
const condition = fc.constantFrom("True", "False", "Unknown");
const ago = fc.integer({ min: 0, max: 7_200 }).map((s) => new Date(NOW - s * 1000).toISOString());

const nodeArb = (name: string): fc.Arbitrary<KubeObject> =>
  fc.record({ edge: fc.boolean(), pool: fc.constantFrom(undefined, "pool-a", "pool-b"), duration: durations, ready: condition, readySince: ago, autonomy: fc.constantFrom(undefined, "True", "Unknown") }).map(
    ({ edge, pool, duration, ready, readySince, autonomy }) =>
      ({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, uid: `uid-${name}`, labels: { ...(edge ? { [EDGE_WORKER]: "true" } : {}), ...(pool ? { [NODE_POOL]: pool } : {}) }, annotations: duration === undefined ? {} : { [AUTONOMY_DURATION]: duration } },
        spec: ready === "True" ? {} : { taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute", timeAdded: readySince }] },
        status: { conditions: [{ type: "Ready", status: ready, lastTransitionTime: readySince }, ...(autonomy ? [{ type: AUTONOMY_CONDITION, status: autonomy, lastTransitionTime: readySince }] : [])] },
      }) as KubeObject,
  );
const clusterArb = fc.tuple(...NODES.map(nodeArb));

const podArb = (i: number): fc.Arbitrary<KubeObject> =>
  fc.record({ node: fc.constantFrom(undefined, ...NODES, "gone"), originals: fc.boolean(), seconds: fc.constantFrom(undefined, 30, 300) }).map(
    ({ node, originals, seconds }) =>
      ({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `pod-${i}`, namespace: "team-a", uid: `pod-uid-${i}`, annotations: originals ? { [ORIGINAL_NOT_READY]: "300", [ORIGINAL_UNREACHABLE]: "300" } : {} },
        spec: {
          ...(node ? { nodeName: node } : {}),
          containers: [{ name: "c", image: "x" }],
          tolerations: seconds === undefined ? [] : [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds }],
        },
      }) as KubeObject,
  );

const endpointsArb = fc.array(fc.record({ pod: fc.integer({ min: 0, max: 3 }), node: fc.constantFrom(...NODES) }), { maxLength: 4 }).map(
  (addresses) =>
    ({
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "svc", namespace: "team-a" },
      subsets: [{ addresses: [], notReadyAddresses: addresses.map(({ pod, node }, i) => ({ ip: `10.0.0.${i + 1}`, nodeName: node, targetRef: { kind: "Pod", name: `pod-${pod}`, namespace: "team-a" } })), ports: [{ port: 80 }] }],
    }) as KubeObject,
);

const sliceArb = fc.array(fc.record({ pod: fc.integer({ min: 0, max: 3 }), node: fc.constantFrom(...NODES), ready: fc.boolean() }), { maxLength: 4 }).map(
  (endpoints) =>
    ({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "svc-abc", namespace: "team-a", labels: { "kubernetes.io/service-name": "svc" } },
      addressType: "IPv4",
      endpoints: endpoints.map(({ pod, node, ready }, i) => ({ addresses: [`10.0.0.${i + 1}`], nodeName: node, conditions: { ready, serving: ready, terminating: false }, targetRef: { kind: "Pod", name: `pod-${pod}`, namespace: "team-a" } })),
      ports: [{ port: 80 }],
    }) as KubeObject,
);

type Case = { readonly webhook: string; readonly request: Record<string, unknown> };

const request = (resource: { group: string; version: string; resource: string; kind: string }, operation: "CREATE" | "UPDATE", object: KubeObject, oldObject?: KubeObject, username = "alice"): Record<string, unknown> => ({
  uid: "req-1",
  kind: { group: resource.group, version: resource.version, kind: resource.kind },
  resource: { group: resource.group, version: resource.version, resource: resource.resource },
  operation,
  ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
  name: object.metadata.name,
  object,
  ...(oldObject ? { oldObject } : {}),
  userInfo: { username },
});

const caseArb = (nodes: readonly KubeObject[]): fc.Arbitrary<Case> =>
  fc.oneof(
    podArb(9).map((pod) => ({ webhook: "autonomy-pods", request: request({ group: "", version: "v1", resource: "pods", kind: "Pod" }, "CREATE", pod) })),
    fc.tuple(fc.integer({ min: 0, max: NODES.length - 1 }), durations, fc.constantFrom("alice", "system:serviceaccount:kube-system:node-controller")).map(([i, duration, user]) => {
      const old = nodes[i] as KubeObject;
      const annotations: Record<string, string> = duration === undefined ? {} : { [AUTONOMY_DURATION]: duration };
      const changed = { ...old, metadata: { ...old.metadata, annotations } };
      return { webhook: "autonomy-nodes", request: request({ group: "", version: "v1", resource: "nodes", kind: "Node" }, "UPDATE", changed, old, user) };
    }),
    fc.tuple(endpointsArb, fc.constantFrom("CREATE" as const, "UPDATE" as const)).map(([endpoints, operation]) => ({ webhook: "autonomy-endpoints", request: request({ group: "", version: "v1", resource: "endpoints", kind: "Endpoints" }, operation, endpoints) })),
    fc.tuple(sliceArb, fc.constantFrom("CREATE" as const, "UPDATE" as const)).map(([slice, operation]) => ({ webhook: "autonomy-endpointslices", request: request({ group: "discovery.k8s.io", version: "v1", resource: "endpointslices", kind: "EndpointSlice" }, operation, slice) })),
  );

test("for any cluster and request, the relay decides each relay-decided webhook exactly as the Worker does (property)", async () => {
  const pods = fc.tuple(podArb(0), podArb(1), podArb(2), podArb(3));
  const seen = { patched: new Set<string>(), denied: 0, allowed: 0 };
  await fc.assert(
    fc.asyncProperty(
      clusterArb.chain((nodes) => fc.tuple(fc.constant(nodes), pods, caseArb(nodes))),
      async ([nodes, podList, { webhook, request: req }]) => {
        const nodeCache = new FakeCache(false, { objects: nodes });
        const podCache = new FakeCache(true, { objects: podList });
        const related = (kind: TypeRef): FakeCache | undefined => (kind.kind === "Node" ? nodeCache : kind.kind === "Pod" ? podCache : undefined);
        const worker = {
          admission: (name: string, review: unknown): Promise<AdmissionReviewResponse> => Promise.resolve(admissionRoute(registry, name, new TextEncoder().encode(JSON.stringify(review)))),
        };
        const body = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: req });
        const log = (): void => undefined;
        const atRelay = new Admission({ manifests: { manifest }, related, worker: { admission: () => Promise.reject(new Error("the relay-decided path must not call the Worker")) }, log, decided });
        const atWorker = new Admission({ manifests: { manifest }, related, worker, log });
        const [here, there] = await withClock(NOW, () => Promise.all([atRelay.review(webhook, body), atWorker.review(webhook, body)]));
        assert.deepEqual(here, there);
        const response = (here.body as AdmissionReviewResponse).response;
        if (response.patch) seen.patched.add(webhook);
        else if (response.allowed) seen.allowed += 1;
        else seen.denied += 1;
      },
    ),
    { numRuns: 400, seed: 7 },
  );
  // Not a comparison of plain allows: every mutating webhook patched, and the node guard denied.
  assert.deepEqual([...seen.patched].sort(), ["autonomy-endpoints", "autonomy-endpointslices", "autonomy-pods"]);
  assert.ok(seen.denied > 0 && seen.allowed > 0, `denied ${seen.denied}, allowed ${seen.allowed}`);
});

/** Runs `body` with `Date.now()` fixed, so the relay's clock and the one it sends the Worker are one. */
async function withClock<T>(now: number, body: () => Promise<T>): Promise<T> {
  const real = Date.now;
  Date.now = () => now;
  try {
    return await body();
  } finally {
    Date.now = real;
  }
}
