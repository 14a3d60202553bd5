import assert from "node:assert/strict";
import { test } from "node:test";
import { feasibility } from "./feasible.ts";
import { compileGroup, fitsEver, matchGroup, type MatchGroup, type MatchResult } from "./matcher.ts";
import { gatherGroups } from "./queue.ts";
import type { NodeRecord, PodRecord } from "./records.ts";
import { gang, node, pod } from "./testing/build.ts";
import { buildView, type ClusterView } from "./view.ts";

/** The view of `nodes` with `bound` pods, and the one complete group among `pending`. */
function setup(nodes: readonly NodeRecord[], pending: readonly PodRecord[], bound: readonly PodRecord[] = []): { view: ClusterView; group: MatchGroup } {
  const view = buildView(nodes, [...bound, ...pending], []);
  const [complete] = gatherGroups(pending).complete;
  assert.ok(complete, "one complete group");
  return { view, group: compileGroup(feasibility(view), complete) };
}

function placed(result: MatchResult): Record<string, string> {
  assert.ok("placed" in result, "waits" in result ? result.waits.text : "");
  return Object.fromEntries([...result.placed].map(([uid, name]) => [uid.replace(/^uid-/, ""), name]));
}

test("all or nothing: a group of 3 on a cluster with room for 2 places none", () => {
  const { view, group } = setup([node("n1", { cpu: "1" }), node("n2", { cpu: "1" })], gang("g", 3, { cpu: "1" }));
  const before = view.free.slice();
  const result = matchGroup(view, group);
  assert.ok("waits" in result);
  assert.deepEqual(view.free, before, "nothing held");
  assert.equal(result.waits.kind, "resources");
  assert.equal(result.waits.resource, "cpu");
  assert.equal(result.waits.short, 1000);
  assert.equal(result.waits.text, "cpu: 3 pods need 1 more on 2 candidate nodes");
});

test("unequal pods: the big pod goes first, so the group fits", () => {
  const pods = [pod("a-small", { group: "g", size: 3, cpu: "2" }), pod("b-small", { group: "g", size: 3, cpu: "2" }), pod("c-big", { group: "g", size: 3, cpu: "3" })];
  const { view, group } = setup([node("n1", { cpu: "4" }), node("n2", { cpu: "3" })], pods);
  assert.deepEqual(group.pods.map((p) => p.uid), ["uid-c-big", "uid-a-small", "uid-b-small"]);
  assert.deepEqual(placed(matchGroup(view, group)), { "c-big": "n2", "a-small": "n1", "b-small": "n1" });
});

test("best fit keeps cpu-only pods off the GPU node", () => {
  const { view, group } = setup([node("gpu", { cpu: "8", gpu: "4" }), node("plain", { cpu: "8" })], gang("g", 1, { cpu: "1" }));
  assert.deepEqual(placed(matchGroup(view, group)), { "g-0": "plain" });
});

test("node selector, affinity and taints narrow the candidates", () => {
  const nodes = [
    node("n1", { labels: { pool: "a" } }),
    node("n2", { labels: { pool: "b" } }),
    node("n3", { labels: { pool: "b" }, taints: [{ key: "dedicated", value: "x", effect: "NoSchedule" }] }),
    node("n4", { labels: { pool: "b" }, ready: false }),
  ];
  const selected = setup(nodes, gang("g", 2, { cpu: "1", nodeSelector: { pool: "b" } }));
  assert.deepEqual(placed(matchGroup(selected.view, selected.group)), { "g-0": "n2", "g-1": "n2" });
  const tolerating = setup(nodes, gang("g", 2, { cpu: "5", nodeSelector: { pool: "b" }, tolerations: [{ key: "dedicated", operator: "Exists" }] }));
  assert.deepEqual(Object.values(placed(matchGroup(tolerating.view, tolerating.group))).sort(), ["n2", "n3"]);
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["c"] }] }] } } };
  const none = setup(nodes, gang("g", 2, { affinity }));
  const result = matchGroup(none.view, none.group);
  assert.ok("waits" in result);
  assert.equal(result.waits.kind, "constraints");
  assert.equal(result.waits.text, "2 pods fit no node: 0/4 nodes available: 3 × node didn't match the pod's required node affinity; 1 × node is not Ready");
});

test("pods of other schedulers count as used", () => {
  const nodes = [node("n1", { cpu: "4" })];
  const other = pod("web", { scheduler: "default-scheduler", nodeName: "n1", cpu: "3" });
  const { view, group } = setup(nodes, gang("g", 1, { cpu: "2" }), [other]);
  const result = matchGroup(view, group);
  assert.ok("waits" in result);
  assert.equal(result.waits.text, "cpu: 1 pod needs 1 more on 1 candidate node");
  assert.ok(fitsEver(group, view), "it fits on the empty cluster");
});

test("the wait reason names the resource and how short", () => {
  const nodes = [node("g1", { gpu: "4" }), node("g2", { gpu: "4" }), node("g3", { gpu: "4" })];
  const bound = nodes.map((n) => pod(`train-${n.name}`, { scheduler: "default-scheduler", nodeName: n.name, gpu: "3" }));
  const pods = [pod("a", { group: "g", size: 2, gpu: "3" }), pod("b", { group: "g", size: 2, gpu: "4" })];
  const { view, group } = setup(nodes, pods, bound);
  const result = matchGroup(view, group);
  assert.ok("waits" in result);
  assert.deepEqual(result.waits, { kind: "resources", resource: "nvidia.com/gpu", short: 4, pods: 2, nodes: 3, text: "nvidia.com/gpu: 2 pods need 4 more on 3 candidate nodes" });
});

test("fragmented room: enough in total, not on one node", () => {
  const { view, group } = setup([node("n1", { cpu: "2" }), node("n2", { cpu: "2" })], gang("g", 1, { cpu: "3" }), []);
  const result = matchGroup(view, group);
  assert.ok("waits" in result);
  assert.equal(result.waits.kind, "fragmented");
  assert.equal(result.waits.short, 1000);
  assert.equal(result.waits.text, "cpu: enough free in total but fragmented: a pod needs 3 and the nearest of 2 candidate nodes is 1 short");
  assert.equal(fitsEver(group, view), false, "no node is big enough even empty");
});

test("a resource no node offers is named", () => {
  const { view, group } = setup([node("n1")], gang("g", 1, { gpu: "1" }));
  const result = matchGroup(view, group);
  assert.ok("waits" in result);
  assert.equal(result.waits.text, "nvidia.com/gpu: 1 pod requests it and no node offers it");
  assert.equal(fitsEver(group, view), false);
});

test("fitsEver ignores usage, readiness and cordons but not labels", () => {
  const nodes = [node("n1", { cpu: "4", ready: false }), node("n2", { cpu: "4", unschedulable: true })];
  const busy = pod("busy", { scheduler: "default-scheduler", nodeName: "n1", cpu: "4" });
  const { view, group } = setup(nodes, gang("g", 2, { cpu: "4" }), [busy]);
  assert.equal(fitsEver(group, view), true);
  const selective = setup(nodes, gang("g", 2, { cpu: "4", nodeSelector: { pool: "x" } }));
  assert.equal(fitsEver(selective.group, selective.view), false);
});

test("matching is deterministic", () => {
  const nodes = Array.from({ length: 20 }, (_, i) => node(`n${i}`, { cpu: String(2 + (i % 5)) }));
  const pods = Array.from({ length: 12 }, (_, i) => pod(`p${i}`, { group: "g", size: 12, cpu: `${500 + (i % 4) * 500}m` }));
  const first = setup(nodes, pods);
  const second = setup([...nodes].reverse(), [...pods].reverse());
  assert.deepEqual(placed(matchGroup(first.view, first.group)), placed(matchGroup(second.view, second.group)));
});
