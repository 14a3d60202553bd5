import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject, Mapping } from "../index.ts";
import { parentKeys, snapshotObjects } from "./mapping.ts";
import { FakeCache } from "../../test/support/fake-cache.ts";

const job: KubeObject = {
  apiVersion: "sedna.io/v1alpha1",
  kind: "FederatedLearningJob",
  metadata: { name: "fl", namespace: "ns", uid: "u-fl" },
  spec: { aggregationWorker: { model: { name: "m" } }, trainingWorkers: [{ dataset: { name: "d1" } }, { dataset: { name: "d2" } }, { dataset: {} }] },
} as KubeObject;

function pod(fields: Partial<KubeObject["metadata"]>, spec?: Record<string, unknown>): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", ...fields }, ...(spec ? { spec } : {}) } as KubeObject;
}

function endpointSlice(nodes: readonly (string | undefined)[]): KubeObject {
  return { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "web-x1", namespace: "ns" }, endpoints: nodes.map((nodeName) => ({ addresses: ["10.0.0.1"], ...(nodeName ? { nodeName } : {}) })) } as KubeObject;
}

const none = (): KubeObject[] => [];

test("owner mapping: only the controller ownerReference of the declared kind counts", () => {
  const mapping = { by: "owner", owner: { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" } } as const;
  const owned = pod({ ownerReferences: [{ apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", name: "fl", uid: "u-fl", controller: true }] });
  const notController = pod({ ownerReferences: [{ apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", name: "fl", uid: "u-fl" }] });
  const otherKind = pod({ ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u-rs", controller: true }] });
  assert.deepEqual(parentKeys(mapping, owned, true, none), ["ns/fl"]);
  assert.deepEqual(parentKeys(mapping, owned, false, none), ["fl"], "a cluster-scoped owner is keyed by name alone");
  assert.deepEqual(parentKeys(mapping, notController, true, none), []);
  assert.deepEqual(parentKeys(mapping, otherKind, true, none), []);
});

test("label and self mappings", () => {
  assert.deepEqual(parentKeys({ by: "label", label: "app" }, pod({ labels: { app: "web" } }), true, none), ["ns/web"]);
  assert.deepEqual(parentKeys({ by: "label", label: "node" }, pod({ labels: { node: "edge1" } }), false, none), ["edge1"], "a cluster-scoped parent named by label");
  assert.deepEqual(parentKeys({ by: "label", label: "app" }, pod({}), true, none), []);
  assert.deepEqual(parentKeys({ by: "self" }, job, true, none), ["ns/fl"]);
  assert.deepEqual(parentKeys({ by: "self" }, { apiVersion: "v1", kind: "Node", metadata: { name: "edge1" } } as KubeObject, false, none), ["edge1"]);
});

test("field mapping: a Pod's spec.nodeName names its Node", () => {
  const mapping: Mapping = { by: "field", path: "spec.nodeName" };
  assert.deepEqual(parentKeys(mapping, pod({}, { nodeName: "edge1" }), false, none), ["edge1"]);
  assert.deepEqual(parentKeys(mapping, pod({}, {}), false, none), [], "an unscheduled pod has no node");
  assert.deepEqual(parentKeys(mapping, pod({}, { nodeName: "" }), false, none), []);
});

test("field mapping: an EndpointSlice names every Node of its endpoints, each once", () => {
  const mapping: Mapping = { by: "field", path: "endpoints[].nodeName" };
  assert.deepEqual(parentKeys(mapping, endpointSlice(["n1", "n2", "n1", undefined]), false, none), ["n1", "n2"]);
  assert.deepEqual(parentKeys(mapping, endpointSlice([]), false, none), []);
});

test("field mapping: a namespaced parent is in the child's namespace", () => {
  const mapping: Mapping = { by: "field", path: "spec.serviceAccountName" };
  assert.deepEqual(parentKeys(mapping, pod({ namespace: "team-a" }, { serviceAccountName: "builder" }), true, none), ["team-a/builder"]);
});

test("reference mapping: every parent in the namespace that names the object", () => {
  const dataset = { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "d2", namespace: "ns" } } as KubeObject;
  const elsewhere = { ...job, metadata: { ...job.metadata, namespace: "other", name: "fl2" } } as KubeObject;
  const unrelated = { ...job, metadata: { ...job.metadata, name: "fl3" }, spec: { trainingWorkers: [] } } as KubeObject;
  const mapping: Mapping = { by: "reference", paths: ["spec.trainingWorkers[].dataset.name", "spec.aggregationWorker.model.name"] };
  const asked: string[] = [];
  // A lookup that returns more than it was asked for (a scan): the mapping checks each parent again.
  const parents = (namespace: string | undefined, path: string, value: string): KubeObject[] => {
    asked.push(`${namespace ?? ""}|${path}|${value}`);
    return [job, elsewhere, unrelated];
  };
  assert.deepEqual(parentKeys(mapping, dataset, true, parents), ["ns/fl"]);
  assert.deepEqual(asked, ["ns|spec.trainingWorkers[].dataset.name|d2", "ns|spec.aggregationWorker.model.name|d2"], "parents are looked up by each path, in the object's namespace");
});

test("reference mapping: parents found through an index of the parents' cache, once each", () => {
  const jobs = new FakeCache(true, { fieldPaths: ["spec.aggregationWorker.model.name", "spec.pretrainedModel.name"] });
  const both = { ...job, metadata: { ...job.metadata, name: "both" }, spec: { aggregationWorker: { model: { name: "m" } }, pretrainedModel: { name: "m" } } } as KubeObject;
  const other = { ...job, metadata: { ...job.metadata, namespace: "other" } } as KubeObject;
  jobs.put(job).put(both).put(other);
  const mapping: Mapping = { by: "reference", paths: ["spec.aggregationWorker.model.name", "spec.pretrainedModel.name"] };
  const model = { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "m", namespace: "ns" } } as KubeObject;
  const parents = (_namespace: string | undefined, path: string, value: string): KubeObject[] => jobs.withField(path, value);
  assert.deepEqual(parentKeys(mapping, model, true, parents).sort(), ["ns/both", "ns/fl"], "a parent naming it at two paths is one key; another namespace's parent is not");
  assert.deepEqual(jobs.listed, [], "the parents are never listed");
  jobs.remove(both);
  assert.deepEqual(parentKeys(mapping, model, true, parents), ["ns/fl"]);
});

test("label mapping: a parent's children come from the label index, in its namespace", () => {
  const pods = new FakeCache(true, { objects: [pod({ name: "a", labels: { app: "web" } }), pod({ name: "b", labels: { app: "db" } }), pod({ name: "c", namespace: "other", labels: { app: "web" } })] });
  const watch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "label", label: "app" } as Mapping };
  const parent = { key: "ns/web", namespace: "ns", name: "web", uid: "u-web", object: null, namespaced: true };
  assert.deepEqual(snapshotObjects(watch, pods, parent).map((o) => o.metadata.name), ["a"]);
  assert.deepEqual(pods.listed, [], "no list of the namespace per parent");
  const clusterParent = { ...parent, key: "web", namespace: undefined, namespaced: false };
  assert.deepEqual(snapshotObjects(watch, pods, clusterParent).map((o) => o.metadata.name).sort(), ["a", "c"], "a cluster-scoped parent names children in any namespace");
});

test("none mapping: a cache-only kind makes no parent dirty and is in no snapshot", () => {
  const node = { apiVersion: "v1", kind: "Node", metadata: { name: "gpu-1" } } as KubeObject;
  assert.deepEqual(parentKeys({ by: "none" }, node, true, () => [job]), []);
  const watch = { apiVersion: "v1", kind: "Node", resource: "nodes", namespaced: false, mapping: { by: "none" } as Mapping };
  const parent = { key: "ns/fl", namespace: "ns", name: "fl", uid: "u-fl", object: job, namespaced: true };
  assert.deepEqual(snapshotObjects(watch, new FakeCache(false, { objects: [node] }), parent), []);
});
