import assert from "node:assert/strict";
import { test } from "node:test";
import { at, node, pod } from "./testing/build.ts";
import { buildView, type ClusterView } from "./view.ts";

function freeOf(view: ClusterView, name: string): Record<string, number> {
  const n = view.index.get(name) ?? -1;
  return Object.fromEntries(view.dims.map((dim, d) => [dim, view.free[n * view.dims.length + d] ?? NaN]));
}

test("pods of any scheduler bound to a node count as used; terminal pods and unbound pods do not", () => {
  const view = buildView(
    [node("b", { cpu: "4", memory: "8Gi" }), node("a", { cpu: "4", memory: "8Gi", gpu: "2" })],
    [
      pod("other", { scheduler: "default-scheduler", nodeName: "a", cpu: "1", memory: "1Gi" }),
      pod("ours", { nodeName: "a", cpu: "500m", gpu: "1" }),
      pod("done", { scheduler: "default-scheduler", nodeName: "a", cpu: "2", phase: "Succeeded" }),
      pod("failed", { nodeName: "b", cpu: "2", phase: "Failed" }),
      pod("pending", { cpu: "3" }),
      pod("elsewhere", { nodeName: "gone", cpu: "3" }),
    ],
    [],
  );
  assert.deepEqual(view.dims, ["cpu", "memory", "pods", "nvidia.com/gpu"]);
  assert.deepEqual(view.nodes.map((n) => n.name), ["a", "b"]);
  assert.deepEqual(freeOf(view, "a"), { cpu: 2500, memory: 7 * 2 ** 30, pods: 108, "nvidia.com/gpu": 1 });
  assert.deepEqual(freeOf(view, "b"), { cpu: 4000, memory: 8 * 2 ** 30, pods: 110, "nvidia.com/gpu": 0 });
});

test("an allocation's pods count once: through the pod once bound, through the allocation before, not at all when finished", () => {
  const request = { cpu: 1000, memory: 0, pods: 1, scalar: {} };
  const allocation = {
    group: "default/g",
    startedAt: at(0),
    endsAt: at(60),
    pods: [
      { uid: "uid-bound", node: "a", request },
      { uid: "uid-inflight", node: "a", request },
      { uid: "uid-unseen", node: "a", request },
      { uid: "uid-done", node: "a", request },
    ],
  };
  const view = buildView(
    [node("a", { cpu: "8" })],
    [pod("bound", { nodeName: "a", cpu: "1" }), pod("inflight", { cpu: "1" }), pod("done", { nodeName: "a", cpu: "1", phase: "Succeeded" })],
    [allocation],
  );
  assert.equal(freeOf(view, "a")["cpu"], 5000);
  assert.equal(view.held.get("default/g")?.length, 3);
});
