import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../../../protocol/index.ts";
import { targets, workerPod, type WorkerPod } from "./targets.ts";
import { dataset, deleting, flJob, jiService, model, workerPod as podOf } from "./testing/objects.ts";

function nodesOf(objects: readonly KubeObject[], pods: readonly KubeObject[] = []): Record<string, readonly string[]> {
  const workers = pods.map(workerPod).filter((p): p is WorkerPod => p !== undefined);
  return Object.fromEntries(targets({ objects, pods: workers }).map((t) => [`${t.object.kind}/${t.object.metadata.name ?? ""}`, t.nodes]));
}

const fl = flJob("fl", ["edge-2", "edge-1", "edge-1", ""]);
const ji = jiService("ji", "edge-3");

const cases: readonly { readonly what: string; readonly objects: readonly KubeObject[]; readonly pods?: readonly KubeObject[]; readonly want: Record<string, readonly string[]> }[] = [
  { what: "an FL job goes to its training workers' pinned nodes, once each", objects: [fl], want: { "FederatedLearningJob/fl": ["edge-1", "edge-2"] } },
  {
    what: "an FL job goes to the nodes its training pods are bound to too, not its aggregation pod's",
    objects: [fl],
    pods: [podOf(fl, "train", "t3", "edge-9"), podOf(fl, "aggregation", "agg", "cloud-1"), podOf(fl, "train", "t4")],
    want: { "FederatedLearningJob/fl": ["edge-1", "edge-2", "edge-9"] },
  },
  { what: "a pod being deleted no longer holds its job on its node", objects: [fl], pods: [deleting(podOf(fl, "train", "t3", "edge-9"))], want: { "FederatedLearningJob/fl": ["edge-1", "edge-2"] } },
  { what: "another job's pods do not count", objects: [fl, flJob("other", [])], pods: [podOf(flJob("other", []), "train", "o1", "edge-7")], want: { "FederatedLearningJob/fl": ["edge-1", "edge-2"], "FederatedLearningJob/other": ["edge-7"] } },
  { what: "a JI service goes to its edge worker's node and its edge pods', not its cloud pods'", objects: [ji], pods: [podOf(ji, "edge", "e1", "edge-4"), podOf(ji, "cloud", "c1", "cloud-1")], want: { "JointInferenceService/ji": ["edge-3", "edge-4"] } },
  { what: "a JI service pinned nowhere with no pods goes nowhere", objects: [jiService("ji", "")], want: { "JointInferenceService/ji": [] } },
  { what: "a Dataset goes to its nodeName", objects: [dataset("d", "edge-5")], want: { "Dataset/d": ["edge-5"] } },
  {
    what: "a Model goes to the nodes of every job and service that references it (FL aggregation and pretrained, JI edge and cloud)",
    objects: [model("global-model"), model("pre"), model("edge-model"), model("cloud-model"), model("unused"), fl, flJob("fl2", ["edge-6"], "x", { spec: { ...flJob("fl2", ["edge-6"])["spec"] as object, pretrainedModel: { name: "pre" } } }), ji],
    want: {
      "Model/global-model": ["edge-1", "edge-2", "edge-6"],
      "Model/pre": ["edge-6"],
      "Model/edge-model": ["edge-3"],
      "Model/cloud-model": ["edge-3"],
      "Model/unused": [],
      "FederatedLearningJob/fl": ["edge-1", "edge-2"],
      "FederatedLearningJob/fl2": ["edge-6"],
      "JointInferenceService/ji": ["edge-3"],
    },
  },
  { what: "a Model referenced only by a job being deleted goes nowhere, nor does that job", objects: [model("global-model"), deleting(fl)], want: { "Model/global-model": [], "FederatedLearningJob/fl": [] } },
  { what: "a Dataset being deleted goes nowhere", objects: [deleting(dataset("d", "edge-5"))], want: { "Dataset/d": [] } },
];

for (const { what, objects, pods, want } of cases) {
  test(what, () => {
    assert.deepEqual(nodesOf(objects, pods), want);
  });
}

test("a pod without a Sedna owner label is no worker", () => {
  assert.equal(workerPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { app: "x" } } }), undefined);
  assert.deepEqual(workerPod(podOf(fl, "train", "t", "n1")), { ownerUid: "uid-fl", ownerKind: "FederatedLearningJob", workerType: "train", nodeName: "n1", terminating: false });
});
