import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject, Mapping } from "../../protocol/index.ts";
import { keyOfObject, parentKeys, valuesAt } from "./mapping.ts";

const job: KubeObject = {
  apiVersion: "sedna.io/v1alpha1",
  kind: "FederatedLearningJob",
  metadata: { name: "fl", namespace: "ns", uid: "u-fl" },
  spec: { aggregationWorker: { model: { name: "m" } }, trainingWorkers: [{ dataset: { name: "d1" } }, { dataset: { name: "d2" } }, { dataset: {} }] },
} as KubeObject;

function pod(fields: Partial<KubeObject["metadata"]>, nodeName?: string): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", ...fields }, ...(nodeName ? { spec: { nodeName } } : {}) } as KubeObject;
}

test("keys are namespace/name, or the name for cluster-scoped objects", () => {
  assert.equal(keyOfObject(job), "ns/fl");
  assert.equal(keyOfObject({ apiVersion: "v1", kind: "Node", metadata: { name: "edge1" } } as KubeObject), "edge1");
});

test("valuesAt follows dot paths and [] over arrays, skipping missing and empty values", () => {
  assert.deepEqual(valuesAt(job, "spec.aggregationWorker.model.name"), ["m"]);
  assert.deepEqual(valuesAt(job, "spec.trainingWorkers[].dataset.name"), ["d1", "d2"]);
  assert.deepEqual(valuesAt(job, "spec.nothing[].x"), []);
  assert.deepEqual(valuesAt(job, "spec.aggregationWorker[].model"), [], "[] on a non-array yields nothing");
});

test("owner mapping: only the controller ownerReference of the declared kind counts", () => {
  const mapping = { by: "owner", owner: { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" } } as const;
  const owned = pod({ ownerReferences: [{ apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", name: "fl", uid: "u-fl", controller: true }] });
  const notController = pod({ ownerReferences: [{ apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", name: "fl", uid: "u-fl" }] });
  const otherKind = pod({ ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u-rs", controller: true }] });
  assert.deepEqual(parentKeys(mapping, owned, () => []), ["ns/fl"]);
  assert.deepEqual(parentKeys(mapping, notController, () => []), []);
  assert.deepEqual(parentKeys(mapping, otherKind, () => []), []);
});

test("label, node and self mappings", () => {
  assert.deepEqual(parentKeys({ by: "label", label: "app" }, pod({ labels: { app: "web" } }), () => []), ["ns/web"]);
  assert.deepEqual(parentKeys({ by: "label", label: "app" }, pod({}), () => []), []);
  assert.deepEqual(parentKeys({ by: "node" }, pod({}, "edge1"), () => []), ["edge1"]);
  assert.deepEqual(parentKeys({ by: "node" }, pod({}), () => []), [], "an unscheduled pod has no node");
  assert.deepEqual(parentKeys({ by: "self" }, job, () => []), ["ns/fl"]);
});

test("reference mapping: every parent in the namespace that names the object", () => {
  const dataset = { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "d2", namespace: "ns" } } as KubeObject;
  const elsewhere = { ...job, metadata: { ...job.metadata, namespace: "other", name: "fl2" } } as KubeObject;
  const unrelated = { ...job, metadata: { ...job.metadata, name: "fl3" }, spec: { trainingWorkers: [] } } as KubeObject;
  const mapping: Mapping = { by: "reference", paths: ["spec.trainingWorkers[].dataset.name", "spec.aggregationWorker.model.name"] };
  assert.deepEqual(parentKeys(mapping, dataset, () => [job, elsewhere, unrelated]), ["ns/fl"]);
});
