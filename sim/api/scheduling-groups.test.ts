import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { apiError } from "../../test/support/api-error.ts";
import { SimCluster } from "./sim-cluster.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const WORKLOAD = { apiVersion: "scheduling.k8s.io/v1alpha2", kind: "Workload" };
const POD_GROUP = { apiVersion: "scheduling.k8s.io/v1alpha2", kind: "PodGroup" };
const POD = { apiVersion: "v1", kind: "Pod" };

const podGroup = (name: string, policy: Obj): KubeObject => ({ ...POD_GROUP, metadata: { name, namespace: "default" }, spec: { schedulingPolicy: policy } }) as KubeObject;

test("KEP-4671's Workload and PodGroup are served beside PriorityClass (v1 preferred), with their rules", async () => {
  const cluster = new SimCluster();
  const group = cluster.registry.groups().find((g) => g.name === "scheduling.k8s.io");
  assert.deepEqual(group?.versions, ["v1", "v1alpha2"]);
  assert.equal(cluster.registry.preferredVersion("scheduling.k8s.io"), "v1");
  const workload = (await cluster.create({ ...WORKLOAD, metadata: { name: "training-policy", namespace: "default" }, spec: { podGroupTemplates: [{ name: "worker", schedulingPolicy: { gang: { minCount: 4 } } }] } } as KubeObject)) as Obj;
  assert.equal(workload.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount, 4);
  const gang = (await cluster.create(podGroup("g", { gang: { minCount: 4 } }))) as Obj;
  assert.equal(gang.spec.schedulingPolicy.gang.minCount, 4);
  assert.equal(gang.metadata.generation, 1);
  const basic = (await cluster.create(podGroup("b", { basic: {} }))) as Obj;
  assert.deepEqual(basic.spec.schedulingPolicy, { basic: {} }, "an empty basic policy is kept");
  assert.equal((await apiError(cluster.create(podGroup("none", {})))).code, 422);
  assert.equal((await apiError(cluster.create(podGroup("both", { basic: {}, gang: { minCount: 2 } })))).code, 422);
  const zero = await apiError(cluster.create(podGroup("zero", { gang: { minCount: 0 } })));
  assert.match(zero.message, /spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1/);
  assert.equal((await apiError(cluster.patch(POD_GROUP, "default", "g", { spec: { schedulingPolicy: { gang: { minCount: 2 } } } }, "merge"))).code, 422, "spec immutable");
  const status = (await cluster.patch(POD_GROUP, "default", "g", { status: { conditions: [{ type: "PodGroupScheduled", status: "True", reason: "Scheduled", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } }, "merge", { subresource: "status" })) as Obj;
  assert.equal(status.status.conditions[0].type, "PodGroupScheduled");
});

test("a pod names its PodGroup in spec.schedulingGroup (kept, not pruned)", async () => {
  const cluster = new SimCluster();
  const pod = (await cluster.create({ ...POD, metadata: { name: "worker-0", namespace: "default" }, spec: { schedulingGroup: { podGroupName: "training-worker-0" }, containers: [{ name: "ml-worker", image: "training:v1" }] } } as KubeObject)) as Obj;
  assert.deepEqual(pod.spec.schedulingGroup, { podGroupName: "training-worker-0" });
});
