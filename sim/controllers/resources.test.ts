import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { allocatableOf, amountOf, charge, idleUsage, insufficient, podRequests } from "./resources.ts";

const pod = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec }) as KubeObject;
const container = (requests: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: "c", image: "i", resources: { requests }, ...extra });

test("quantities: decimal and binary suffixes, exponents, milli; what is no quantity counts 0", () => {
  assert.equal(amountOf("cpu", "500m"), 500);
  assert.equal(amountOf("pods", "2"), 2);
  assert.equal(amountOf("memory", "1Gi"), 1024 ** 3);
  assert.equal(amountOf("memory", "1k"), 1000);
  assert.equal(amountOf("memory", "1e3"), 1000);
  assert.equal(amountOf("memory", "1.5E2"), 150);
  assert.equal(amountOf("cpu", ".5"), 500);
  assert.equal(amountOf("memory", "junk"), 0);
  assert.equal(amountOf("memory", "3Xi"), 0, "an unknown suffix is no quantity");
});

test("amounts: cpu in millicores, the rest rounded up to units, without float noise", () => {
  assert.equal(amountOf("cpu", "0.1"), 100);
  assert.equal(amountOf("cpu", "1"), 1000);
  assert.equal(amountOf("cpu", "1m"), 1);
  assert.equal(amountOf("cpu", "0.0001"), 1, "below a millicore rounds up");
  assert.equal(amountOf("memory", "1.1Gi"), 1181116007);
  assert.equal(amountOf("nvidia.com/gpu", "2"), 2);
  assert.equal(amountOf("nvidia.com/gpu", "500m"), 1, "Value() rounds up");
});

test("pod requests: containers summed, init containers as a peak, sidecars alongside, overhead added", () => {
  const requests = podRequests(
    pod({
      containers: [container({ cpu: "100m", "nvidia.com/gpu": "1" }), container({ cpu: "200m", memory: "1Gi" })],
      initContainers: [container({ cpu: "50m" }, { restartPolicy: "Always" }), container({ cpu: "2", "nvidia.com/gpu": "2" })],
      overhead: { cpu: "10m" },
    }),
  );
  // containers 300m + sidecar 50m = 350m; the init container needs 2000m + the 50m sidecar before it: 2050m, + 10m overhead.
  assert.equal(requests.get("cpu"), 2060);
  assert.equal(requests.get("memory"), 1024 ** 3);
  assert.equal(requests.get("nvidia.com/gpu"), 2);
  assert.equal(podRequests(pod({ containers: [{ name: "c", image: "i" }] })).size, 0);
});

test("node allocatable parsed once; pods 110 when the node does not say", () => {
  const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n" }, status: { allocatable: { cpu: "8", "nvidia.com/gpu": "4" } } } as KubeObject;
  const allocatable = allocatableOf(node);
  assert.equal(allocatable.get("cpu"), 8000);
  assert.equal(allocatable.get("nvidia.com/gpu"), 4);
  assert.equal(allocatable.get("pods"), 110);
});

test("usage: charged and released per pod; insufficient compares what is left", () => {
  const used = idleUsage();
  const gpuPod = new Map([["nvidia.com/gpu", 3]]);
  charge(used, gpuPod, 1);
  const allocatable = new Map([["pods", 10], ["nvidia.com/gpu", 4]]);
  assert.deepEqual(insufficient(new Map([["nvidia.com/gpu", 1]]), allocatable, used), []);
  assert.deepEqual(insufficient(new Map([["nvidia.com/gpu", 2]]), allocatable, used), ["Insufficient nvidia.com/gpu"]);
  charge(used, gpuPod, -1);
  assert.equal(used.pods, 0);
  assert.deepEqual(insufficient(new Map([["nvidia.com/gpu", 4]]), allocatable, used), []);
  assert.deepEqual(insufficient(new Map(), new Map([["pods", 1]]), { pods: 1, requested: new Map() }), ["Too many pods"]);
});
