import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { matchesNodeAffinity, pinnedNodeNames } from "./node-affinity.ts";
import { simNode } from "./nodes.ts";
import { idleUsage } from "./resources.ts";
import { fitErrorMessage, scheduler, unfit } from "./scheduler.ts";
import type { Obj } from "./runtime.ts";

const node = (name: string, extra: Obj = {}, labels: Record<string, string> = {}): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...labels } },
    spec: extra.spec ?? {},
    status: { allocatable: { cpu: "2", memory: "4Gi", pods: "10" }, conditions: [{ type: "Ready", status: extra.ready ?? "True" }] },
  }) as KubeObject;
const pod = (spec: Obj = {}): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } }) as KubeObject;
const idle = idleUsage();

test("kube-scheduler's FailedScheduling message: a sorted histogram, then the preemption verdict", () => {
  assert.equal(
    fitErrorMessage([["node(s) didn't match Pod's node affinity/selector"], ["node(s) didn't match Pod's node affinity/selector"], ["node(s) didn't match Pod's node affinity/selector"]]),
    "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
  );
  assert.equal(
    fitErrorMessage([["node(s) had untolerated taint {machine-check-exception: memory}"], ["Insufficient cpu"], ["Insufficient cpu"]]),
    "0/3 nodes are available: 1 node(s) had untolerated taint {machine-check-exception: memory}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
  );
  assert.equal(fitErrorMessage([]), "no nodes available to schedule pods");
});

test("unfit follows the filter plugins' order and words", () => {
  assert.deepEqual(unfit(pod(), node("n"), idle), []);
  assert.deepEqual(unfit(pod(), node("n", { spec: { unschedulable: true } }), idle), ["node(s) were unschedulable"]);
  assert.deepEqual(unfit(pod(), node("n", { spec: { taints: [{ key: "gpu", value: "yes", effect: "NoSchedule" }] } }), idle), ["node(s) had untolerated taint {gpu: yes}"]);
  assert.deepEqual(unfit(pod({ tolerations: [{ key: "gpu", operator: "Exists" }] }), node("n", { spec: { taints: [{ key: "gpu", value: "yes", effect: "NoSchedule" }] } }), idle), []);
  assert.deepEqual(unfit(pod(), node("n", { ready: "Unknown" }), idle), ["node(s) had untolerated taint {node.kubernetes.io/unreachable: }"], "a node gone silent counts as tainted before the lifecycle controller taints it");
  assert.deepEqual(unfit(pod({ nodeSelector: { zone: "mars" } }), node("n"), idle), ["node(s) didn't match Pod's node affinity/selector"]);
  const big = pod({ containers: [{ name: "c", image: "i", resources: { requests: { cpu: "3", memory: "8Gi" } } }] });
  assert.deepEqual(unfit(big, node("n"), { pods: 10, requested: new Map() }), ["Too many pods", "Insufficient cpu", "Insufficient memory"], "NodeResourcesFit names every shortage");
});

test("NodeResourcesFit: extended resources counted as integers against allocatable, absent = 0", () => {
  const gpus = (n: string, limitsOnly = false): KubeObject => pod({ containers: [{ name: "c", image: "i", resources: limitsOnly ? { limits: { "nvidia.com/gpu": n } } : { requests: { "nvidia.com/gpu": n }, limits: { "nvidia.com/gpu": n } } }] });
  const gpuNode = (count: string): KubeObject => ({ ...node("g"), status: { allocatable: { cpu: "2", memory: "4Gi", pods: "10", "nvidia.com/gpu": count }, conditions: [{ type: "Ready", status: "True" }] } }) as KubeObject;
  assert.deepEqual(unfit(gpus("1"), node("n"), idle), ["Insufficient nvidia.com/gpu"], "a node without the resource has none");
  assert.deepEqual(unfit(gpus("2"), gpuNode("2"), idle), []);
  assert.deepEqual(unfit(gpus("1"), gpuNode("2"), { pods: 1, requested: new Map([["nvidia.com/gpu", 2]]) }), ["Insufficient nvidia.com/gpu"], "what bound pods use is taken");
  assert.deepEqual(unfit(gpus("3"), gpuNode("2"), idle), ["Insufficient nvidia.com/gpu"]);
  assert.deepEqual(unfit(pod(), gpuNode("0"), { pods: 1, requested: new Map([["cpu", 5000]]) }), [], "a resource the pod does not request is not checked, even overcommitted");
  const both = pod({ containers: [{ name: "c", image: "i", resources: { requests: { cpu: "3", "example.com/fpga": "1", "nvidia.com/gpu": "1" } } }] });
  assert.deepEqual(unfit(both, node("n"), idle), ["Insufficient cpu", "Insufficient example.com/fpga", "Insufficient nvidia.com/gpu"], "cpu first, then every extended resource short");
  assert.equal(
    fitErrorMessage([["Insufficient nvidia.com/gpu"], ["Insufficient nvidia.com/gpu"]]),
    "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
    "preemption could free extended resources",
  );
});

test("required node affinity: terms ORed, requirements ANDed, matchFields on metadata.name", () => {
  const affinity = (terms: Obj[]): KubeObject => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
  const zoned = node("n1", {}, { zone: "a", gen: "5" });
  assert.equal(matchesNodeAffinity(affinity([{ matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }]), zoned), true);
  assert.equal(matchesNodeAffinity(affinity([{ matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }]), zoned), false);
  assert.equal(matchesNodeAffinity(affinity([{ matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }, { matchExpressions: [{ key: "gen", operator: "Gt", values: ["4"] }] }]), zoned), true);
  assert.equal(matchesNodeAffinity(affinity([{ matchExpressions: [{ key: "zone", operator: "Exists" }, { key: "gen", operator: "Lt", values: ["5"] }] }]), zoned), false);
  assert.equal(matchesNodeAffinity(affinity([{}]), zoned), false, "an empty term matches nothing");
  assert.equal(matchesNodeAffinity(affinity([{ matchFields: [{ key: "metadata.name", operator: "In", values: ["n1"] }] }]), zoned), true);
  assert.deepEqual(pinnedNodeNames(affinity([{ matchFields: [{ key: "metadata.name", operator: "In", values: ["n1", "n2"] }] }])), new Set(["n1", "n2"]));
  assert.equal(pinnedNodeNames(affinity([{ matchFields: [{ key: "metadata.name", operator: "In", values: ["n1"] }] }, { matchExpressions: [{ key: "zone", operator: "Exists" }] }])), undefined, "a term without a pin allows any node");
  assert.equal(pinnedNodeNames(pod()), undefined);
});

test("a paused scheduler binds nothing (the pods stay Pending) until resumed, then binds every pod it held", async () => {
  const cluster = new SimCluster();
  const controller = scheduler();
  controller.start(cluster);
  try {
    await cluster.create(simNode("n1"));
    controller.pause();
    for (const name of ["a", "b"]) await cluster.create({ ...pod(), metadata: { name, namespace: "default" } } as KubeObject);
    // Both pods reached the scheduler and were kept aside: only then can "bound nothing" be told.
    await waitFor("the paused scheduler to hold both pods", async () => controller.holding(), (held) => held === 2, { timeoutMs: 5_000 });
    const nodeOf = async (name: string): Promise<unknown> => ((await cluster.get({ apiVersion: "v1", kind: "Pod" }, "default", name)) as { spec?: Obj }).spec?.nodeName;
    assert.deepEqual([await nodeOf("a"), await nodeOf("b")], [undefined, undefined], "nothing is bound while paused");
    controller.resume();
    const nodes = await waitFor("both pods bound after the resume (their nodes)", async () => [await nodeOf("a"), await nodeOf("b")], (bound) => bound.every((node) => node !== undefined), { timeoutMs: 5_000 });
    assert.deepEqual(nodes, ["n1", "n1"]);
  } finally {
    await controller.stop();
  }
});
