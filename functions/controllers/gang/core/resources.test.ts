import assert from "node:assert/strict";
import { test } from "node:test";
import { amount, formatAmount, nodeAllocatable, podRequests, resourceList } from "./resources.ts";

test("resource lists: cpu in millicores, the rest in units, rounded up and clamped; what is no quantity counts 0", () => {
  const cases: [string, unknown, number][] = [
    ["cpu", "500m", 500],
    ["cpu", "2", 2000],
    ["cpu", "1.5", 1500],
    ["cpu", "0.1", 100],
    ["cpu", 20, 20000],
    ["memory", "1e3", 1000],
    ["memory", "1E3", 1000],
    ["memory", "1Gi", 2 ** 30],
    ["memory", "1.5Gi", 1.5 * 2 ** 30],
    ["memory", "128974848", 128974848],
    ["memory", "129M", 129_000_000],
    ["memory", "1P", 1e15],
    ["memory", "1E", Number.MAX_SAFE_INTEGER],
    ["cpu", "100n", 1],
    ["pods", "0.5", 1],
    ["nvidia.com/gpu", "1e400", Number.MAX_SAFE_INTEGER],
    ["cpu", "-1", 0],
  ];
  for (const [name, value, want] of cases) assert.equal(amount(resourceList({ [name]: value }), name), want, `${name}: ${String(value)}`);
  for (const bad of ["", "abc", "1Gb", "--1", "1.2.3", {}, null]) assert.equal(amount(resourceList({ "nvidia.com/gpu": bad }), "nvidia.com/gpu"), 0, String(bad));
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
