import assert from "node:assert/strict";
import { test } from "node:test";
import { formatAmount, nodeAllocatable, parseQuantity, podRequests } from "./resources.ts";

test("quantities parse exactly, rounded up", () => {
  assert.equal(parseQuantity("500m", 1000), 500);
  assert.equal(parseQuantity("2", 1000), 2000);
  assert.equal(parseQuantity("1.5", 1000), 1500);
  assert.equal(parseQuantity("0.1", 1000), 100);
  assert.equal(parseQuantity(20, 1000), 20000);
  assert.equal(parseQuantity("1e3"), 1000);
  assert.equal(parseQuantity("1E3"), 1000);
  assert.equal(parseQuantity("1Gi"), 2 ** 30);
  assert.equal(parseQuantity("1.5Gi"), 1.5 * 2 ** 30);
  assert.equal(parseQuantity("128974848"), 128974848);
  assert.equal(parseQuantity("129M"), 129_000_000);
  assert.equal(parseQuantity("1P"), 1e15);
  assert.equal(parseQuantity("1E"), Number.MAX_SAFE_INTEGER, "beyond 2^53 is clamped");
  assert.equal(parseQuantity("100n", 1000), 1);
  assert.equal(parseQuantity("0.5"), 1);
  assert.equal(parseQuantity("1e400"), Number.MAX_SAFE_INTEGER);
  for (const bad of ["", "abc", "1Gb", "--1", "1.2.3", {}, null]) assert.equal(parseQuantity(bad), undefined, String(bad));
});

test("a pod requests max(sum of containers, each init container) plus overhead and one pod slot", () => {
  const requests = podRequests({
    spec: {
      containers: [
        { name: "a", resources: { requests: { cpu: "500m", memory: "1Gi", "nvidia.com/gpu": "1" } } },
        { name: "b", resources: { requests: { cpu: "1" }, limits: { memory: "2Gi" } } },
      ],
      initContainers: [{ name: "init", resources: { requests: { cpu: "4", memory: "1Gi" } } }],
      overhead: { cpu: "100m", memory: "64Mi" },
    },
  });
  assert.deepEqual(requests, { cpu: 4100, memory: 3 * 2 ** 30 + 64 * 2 ** 20, pods: 1, scalar: { "nvidia.com/gpu": 1 } });
});

test("sidecar init containers add to the containers and to later init containers", () => {
  const requests = podRequests({
    spec: {
      containers: [{ name: "a", resources: { requests: { cpu: "1" } } }],
      initContainers: [
        { name: "sidecar", restartPolicy: "Always", resources: { requests: { cpu: "1" } } },
        { name: "init", resources: { requests: { cpu: "3" } } },
      ],
    },
  });
  assert.equal(requests.cpu, 4000);
});

test("a pod without requests requests one pod slot only", () => {
  assert.deepEqual(podRequests({ spec: { containers: [{ name: "a" }] } }), { cpu: 0, memory: 0, pods: 1, scalar: {} });
});

test("a node's allocatable, falling back to capacity", () => {
  assert.deepEqual(nodeAllocatable({ status: { allocatable: { cpu: "7500m", memory: "31Gi", pods: "110", "nvidia.com/gpu": "4", "ephemeral-storage": "100Gi" } } }), {
    cpu: 7500,
    memory: 31 * 2 ** 30,
    pods: 110,
    scalar: { "ephemeral-storage": 100 * 2 ** 30, "nvidia.com/gpu": 4 },
  });
  assert.equal(nodeAllocatable({ status: { capacity: { cpu: "2" } } }).cpu, 2000);
  assert.equal(nodeAllocatable({}).cpu, 0);
});

test("amounts are formatted for people", () => {
  assert.equal(formatAmount("cpu", 2500), "2500m");
  assert.equal(formatAmount("cpu", 3000), "3");
  assert.equal(formatAmount("memory", 3 * 2 ** 30), "3Gi");
  assert.equal(formatAmount("memory", 1000), "1000");
  assert.equal(formatAmount("nvidia.com/gpu", 4), "4");
});
