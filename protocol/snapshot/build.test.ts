import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerManifest, RelatedObjects, type KubeObject, type ReconcileRequest, type Trigger, type Watch } from "../index.ts";
import { parentKeys } from "./mapping.ts";
import { buildSnapshot, withRelated } from "./build.ts";
import { FakeCache } from "../../test/support/fake-cache.ts";

const NOW = new Date("2030-01-01T00:00:00Z");

const nodeWatch: Watch = { apiVersion: "v1", kind: "Node", resource: "nodes", namespaced: false, mapping: { by: "self" } };
const podWatch: Watch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "field", path: "spec.nodeName" } };
const sliceWatch: Watch = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", resource: "endpointslices", namespaced: true, mapping: { by: "field", path: "endpoints[].nodeName" } };

const nodeAgent: ControllerManifest = { name: "node-agent", delivery: "snapshot", related: [], parent: { apiVersion: "v1", kind: "Node" }, watches: [nodeWatch, podWatch, sliceWatch], webhooks: [], apis: [], channels: [], permissions: [] };

const node = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name, uid: `u-${name}` } });
const pod = (namespace: string, name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace, name }, spec }) as KubeObject;
const slice = (name: string, nodes: readonly string[]): KubeObject => ({ apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { namespace: "ns", name }, endpoints: nodes.map((nodeName) => ({ nodeName })) }) as KubeObject;

function caches(): { nodes: FakeCache; pods: FakeCache; slices: FakeCache; view: (watch: Watch) => FakeCache | undefined } {
  const nodes = new FakeCache(false, { objects: [node("edge1"), node("edge2")] });
  const pods = new FakeCache(true, { fieldPaths: ["spec.nodeName", "spec.serviceAccountName"] });
  const slices = new FakeCache(true, { fieldPaths: ["endpoints[].nodeName"] });
  const byKind = new Map([["Node", nodes], ["Pod", pods], ["EndpointSlice", slices]]);
  return { nodes, pods, slices, view: (watch) => byKind.get(watch.kind) };
}

function names(objects: readonly KubeObject[] | undefined): string[] {
  return (objects ?? []).map((o) => o.metadata.name ?? "").sort();
}

/** The snapshot's children of a kind, checked against the other direction of the mapping. */
function children(controller: ControllerManifest, key: string, view: (watch: Watch) => FakeCache | undefined, watch: Watch, parentNamespaced: boolean): string[] {
  const found = buildSnapshot(controller, key, view, [], NOW).children[`${watch.kind}.${watch.apiVersion}`];
  for (const child of found ?? []) assert.ok(parentKeys(watch.mapping, child, parentNamespaced, () => []).includes(key), `${child.metadata.name ?? ""} maps back to ${key}`);
  return names(found);
}

test("field mapping: a Node's snapshot holds the pods on it, across namespaces", () => {
  const { pods, view } = caches();
  pods.put(pod("a", "p1", { nodeName: "edge1" })).put(pod("b", "p2", { nodeName: "edge1" })).put(pod("a", "p3", { nodeName: "edge2" })).put(pod("a", "pending", {}));
  const request = buildSnapshot(nodeAgent, "edge1", view, [], NOW);
  assert.equal(request.parent?.metadata.name, "edge1");
  assert.deepEqual(names(request.children["Pod.v1"]), ["p1", "p2"]);
  assert.deepEqual(request.children["EndpointSlice.discovery.k8s.io/v1"], [], "every declared kind is present, empty or not");
  assert.deepEqual(children(nodeAgent, "edge2", view, podWatch, false), ["p3"]);
});

test("field mapping: a pod that moves to another node leaves the first one's snapshot; a deleted one leaves every snapshot", () => {
  const { pods, view } = caches();
  const p1 = pod("a", "p1", { nodeName: "edge1" });
  pods.put(p1).put(pod("a", "p2", { nodeName: "edge1" }));
  pods.put(pod("a", "p2", { nodeName: "edge2" }));
  assert.deepEqual(children(nodeAgent, "edge1", view, podWatch, false), ["p1"]);
  assert.deepEqual(children(nodeAgent, "edge2", view, podWatch, false), ["p2"]);
  pods.put(pod("a", "p1", {}));
  assert.deepEqual(children(nodeAgent, "edge1", view, podWatch, false), [], "unscheduled again: on no node");
  pods.put(p1).remove(p1);
  assert.deepEqual(children(nodeAgent, "edge1", view, podWatch, false), []);
  assert.deepEqual(children(nodeAgent, "edge2", view, podWatch, false), ["p2"]);
});

test("field mapping: the snapshot carries the newest state of an object that stays on its node", () => {
  const { pods, view } = caches();
  pods.put(pod("a", "p1", { nodeName: "edge1", v: 1 }));
  pods.put(pod("a", "p1", { nodeName: "edge1", v: 2 }));
  const [only] = buildSnapshot(nodeAgent, "edge1", view, [], NOW).children["Pod.v1"] ?? [];
  assert.equal((only as { spec?: { v?: number } } | undefined)?.spec?.v, 2);
});

test("field mapping: an EndpointSlice is a child of every node its endpoints name, and follows them", () => {
  const { slices, view } = caches();
  slices.put(slice("web-1", ["edge1", "edge2", "edge1"]));
  assert.deepEqual(children(nodeAgent, "edge1", view, sliceWatch, false), ["web-1"]);
  assert.deepEqual(children(nodeAgent, "edge2", view, sliceWatch, false), ["web-1"]);
  slices.put(slice("web-1", ["edge2"]));
  assert.deepEqual(children(nodeAgent, "edge1", view, sliceWatch, false), []);
  assert.deepEqual(children(nodeAgent, "edge2", view, sliceWatch, false), ["web-1"]);
  slices.remove(slice("web-1", ["edge2"]));
  assert.deepEqual(children(nodeAgent, "edge2", view, sliceWatch, false), []);
});

test("field mapping: a namespaced parent's children are in its namespace only", () => {
  const accounts = new FakeCache(true, { objects: [{ apiVersion: "v1", kind: "ServiceAccount", metadata: { namespace: "a", name: "builder", uid: "u-sa" } }] });
  const { pods } = caches();
  pods.put(pod("a", "p1", { serviceAccountName: "builder" })).put(pod("b", "p2", { serviceAccountName: "builder" })).put(pod("a", "p3", { serviceAccountName: "default" }));
  const byServiceAccount: Watch = { ...podWatch, mapping: { by: "field", path: "spec.serviceAccountName" } };
  const controller: ControllerManifest = {
    name: "sa-audit",
    delivery: "snapshot", related: [],
    parent: { apiVersion: "v1", kind: "ServiceAccount" },
    watches: [{ apiVersion: "v1", kind: "ServiceAccount", resource: "serviceaccounts", namespaced: true, mapping: { by: "self" } }, byServiceAccount],
    webhooks: [],
    apis: [],
    channels: [],
    permissions: [],
  };
  const view = (watch: Watch): FakeCache => (watch.kind === "Pod" ? pods : accounts);
  assert.deepEqual(children(controller, "a/builder", view, byServiceAccount, true), ["p1"]);
  assert.deepEqual(children(controller, "b/builder", view, byServiceAccount, true), ["p2"]);
});

test("a field path added to a running cache is filled from what it holds", () => {
  const { pods, view } = caches();
  pods.put(pod("a", "p1", { nodeName: "edge1", priorityClassName: "high" }));
  pods.indexFields(["spec.nodeName", "spec.priorityClassName"]);
  assert.deepEqual(names(pods.withField("spec.priorityClassName", "high")), ["p1"]);
  pods.indexFields(["spec.priorityClassName"]);
  assert.throws(() => pods.withField("spec.nodeName", "edge1"), /not indexed/, "a path no watch declares any more is dropped");
  assert.deepEqual(names(view(podWatch)?.withField("spec.priorityClassName", "high")), ["p1"]);
});

test("owner, label and reference mappings fill children and related", () => {
  const parent = { apiVersion: "v1", kind: "ConfigMap" };
  const configMaps = new FakeCache(true, { objects: [{ ...parent, metadata: { namespace: "ns", name: "cfg", uid: "u-cfg" }, data: { secretName: "s1" } } as KubeObject] });
  const owned = { ...parent, metadata: { namespace: "ns", name: "cfg-mirror", ownerReferences: [{ ...parent, name: "cfg", uid: "u-cfg", controller: true }] } };
  configMaps.put(owned);
  const labelled = new FakeCache(true, { objects: [pod("ns", "l1", {}), pod("other", "l2", {})].map((p) => ({ ...p, metadata: { ...p.metadata, labels: { cfg: "cfg" } } })) });
  const secrets = new FakeCache(true, { objects: [{ apiVersion: "v1", kind: "Secret", metadata: { namespace: "ns", name: "s1" } }, { apiVersion: "v1", kind: "Secret", metadata: { namespace: "other", name: "s1" } }] });
  const controller: ControllerManifest = {
    name: "cfg",
    delivery: "snapshot", related: [],
    parent,
    watches: [
      { ...parent, resource: "configmaps", namespaced: true, mapping: { by: "self" } },
      { ...parent, resource: "configmaps", namespaced: true, mapping: { by: "owner", owner: parent } },
      { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "label", label: "cfg" } },
      { apiVersion: "v1", kind: "Secret", resource: "secrets", namespaced: true, mapping: { by: "reference", paths: ["data.secretName"] } },
    ],
    webhooks: [],
    apis: [],
    channels: [],
    permissions: [],
  };
  const view = (watch: Watch): FakeCache => (watch.kind === "Pod" ? labelled : watch.kind === "Secret" ? secrets : configMaps);
  const request = buildSnapshot(controller, "ns/cfg", view, [], NOW);
  assert.deepEqual(names(request.children["ConfigMap.v1"]), ["cfg-mirror"]);
  assert.deepEqual(names(request.children["Pod.v1"]), ["l1"]);
  assert.deepEqual(request.related["Secret.v1"]?.map((s) => s.metadata.namespace), ["ns"]);
});

test("a deleted parent's children are still found by the uid its DELETED trigger carries", () => {
  const parent = { apiVersion: "v1", kind: "ConfigMap" };
  const gone = { ...parent, metadata: { namespace: "ns", name: "cfg", uid: "u-cfg" } };
  const configMaps = new FakeCache(true, { objects: [{ ...parent, metadata: { namespace: "ns", name: "cfg-mirror", ownerReferences: [{ ...parent, name: "cfg", uid: "u-cfg", controller: true }] } }] });
  const watches: Watch[] = [
    { ...parent, resource: "configmaps", namespaced: true, mapping: { by: "self" } },
    { ...parent, resource: "configmaps", namespaced: true, mapping: { by: "owner", owner: parent } },
  ];
  const controller: ControllerManifest = { name: "cfg", delivery: "snapshot", related: [], parent, watches, webhooks: [], apis: [], channels: [], permissions: [] };
  const trigger: Trigger = { type: "DELETED", kind: "ConfigMap.v1", object: gone };
  const request = buildSnapshot(controller, "ns/cfg", () => configMaps, [trigger], NOW);
  assert.equal(request.parent, null);
  assert.deepEqual(names(request.children["ConfigMap.v1"]), ["cfg-mirror"]);
  assert.deepEqual(request.triggers, [trigger]);
});

test("a snapshot gives each watch's objects with the fields it declares, whatever the shared cache keeps", () => {
  const projected: ControllerManifest = { ...nodeAgent, name: "projected", watches: [{ ...nodeWatch, fields: ["metadata.labels"] }, { ...podWatch, fields: ["status.phase"] }] };
  const nodes = new FakeCache(false, { objects: [{ ...node("edge1"), metadata: { ...node("edge1").metadata, labels: { pool: "p" }, annotations: { a: "b" } } }] });
  const pods = new FakeCache(true, { fieldPaths: ["spec.nodeName"], objects: [{ ...pod("ns", "p1", { nodeName: "edge1", containers: [{ name: "c" }] }), status: { phase: "Running", podIP: "10.0.0.1" } } as KubeObject] });
  const request = buildSnapshot(projected, "edge1", (watch) => (watch.kind === "Node" ? nodes : pods), [], NOW);
  assert.deepEqual(request.parent, { apiVersion: "v1", kind: "Node", metadata: { name: "edge1", uid: "u-edge1", labels: { pool: "p" } } });
  assert.deepEqual(request.children["Pod.v1"], [{ apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name: "p1" }, spec: { nodeName: "edge1" }, status: { phase: "Running" } }]);
});

test("a snapshot controller's declared related objects are narrowed to the parent and added once", () => {
  const NODE = { apiVersion: "v1", kind: "Node" };
  const pooled = (name: string, pool?: string): KubeObject => ({ ...NODE, metadata: { name, uid: `u-${name}`, labels: pool === undefined ? {} : { pool } } });
  const nodes = new FakeCache(false, { objects: [pooled("a", "p1"), pooled("b", "p1"), pooled("c", "p2"), pooled("d")] });
  const controller = ControllerManifest.parse({
    name: "pools",
    delivery: "snapshot",
    parent: NODE,
    watches: [{ ...NODE, resource: "nodes", namespaced: false, mapping: { by: "self" } }],
    related: [RelatedObjects.parse({ ...NODE, sharingLabels: { namedBy: ["object.metadata.name"], labels: ["pool"] } })],
  });
  const snapshot = (parent: KubeObject | null): ReconcileRequest => ({ controller: "pools", key: parent?.metadata.name ?? "gone", parent, children: {}, related: {}, triggers: [], now: "2026-01-01T00:00:00Z" });
  const request = withRelated(snapshot(pooled("a", "p1")), controller, (kind) => (kind.kind === "Node" ? nodes : undefined));
  assert.deepEqual((request.related["Node.v1"] ?? []).map((n) => n.metadata.name).sort(), ["a", "b"], "the nodes of a's pool, a included");
  const lone = withRelated(snapshot(pooled("d")), controller, () => nodes);
  assert.deepEqual((lone.related["Node.v1"] ?? []).map((n) => n.metadata.name), [], "no pool label, no peers");
  const gone = snapshot(null);
  assert.equal(withRelated(gone, controller, () => nodes), gone, "a parent that is gone has nothing to narrow by");
});
