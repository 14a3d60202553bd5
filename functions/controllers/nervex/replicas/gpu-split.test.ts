import assert from "node:assert/strict";
import { test } from "node:test";
import { commonGpuCount, layoutCounts, layoutLearners, nodeGpus, splitGpus } from "./gpu-split.ts";
import { node, NODES } from "./testing/world.ts";

const perNode = commonGpuCount(NODES.map(nodeGpus));

test("nodes' allocatable GPUs are read from status.allocatable; none or junk is 0", () => {
  assert.deepEqual(NODES.map(nodeGpus), [8, 8, 0, 4]);
  assert.equal(nodeGpus({ apiVersion: "v1", kind: "Node", metadata: { name: "x" } }), 0);
  assert.equal(nodeGpus({ apiVersion: "v1", kind: "Node", metadata: { name: "x" }, status: { allocatable: { "nvidia.com/gpu": "lots" } } }), 0);
  assert.equal(nodeGpus(node("y", 2)), 2);
});

test("the per-node count is the mode over GPU nodes, a tie going to the larger; none without GPU nodes", () => {
  assert.equal(perNode, 8);
  assert.equal(commonGpuCount([0, 0, 0, 4]), 4, "nodes without GPUs are not candidates");
  assert.equal(commonGpuCount([2, 4]), 4);
  assert.equal(commonGpuCount([2, 2, 4]), 2);
  assert.equal(commonGpuCount([0, 0]), undefined);
  assert.equal(commonGpuCount([]), undefined);
});

test("10 GPUs on nodes with 8, 8, 0 and 4 GPUs → [8, 2]", () => {
  assert.deepEqual(splitGpus(10, perNode), [8, 2]);
  assert.deepEqual(splitGpus(16, 8), [8, 8]);
  assert.deepEqual(splitGpus(17, 8), [8, 8, 1]);
  assert.deepEqual(splitGpus(10, undefined), [10], "no GPU node: not split");
  assert.deepEqual(splitGpus(0, 8), []);
});

test("upstream's table: (learners, gpus) → (aggregators, learners, ddp-learners, gpu ports)", () => {
  const rows: [number, number, [number, number, number, number]][] = [
    [1, 1, [0, 1, 0, 0]],
    [1, 2, [1, 0, 1, 2]],
    [1, 10, [1, 0, 2, 10]],
    [2, 2, [2, 0, 2, 4]],
  ];
  for (const [learners, gpus, [aggregators, plain, ddpLearners, gpuPorts]] of rows) {
    assert.deepEqual(layoutCounts(layoutLearners(learners, gpus, perNode)), { aggregators, learners: plain, ddpLearners, gpuPorts }, `(${learners}, ${gpus})`);
  }
  assert.deepEqual(layoutCounts(layoutLearners(3, 0, perNode)), { aggregators: 0, learners: 3, ddpLearners: 0, gpuPorts: 0 });
});
