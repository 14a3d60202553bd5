import assert from "node:assert/strict";
import { test } from "node:test";
import { BENCH_GROUP_LABEL, BENCH_SIZE_LABEL, GangObserver, PARTIAL_GRACE_MS } from "./observe.ts";
import { creationOrder, groupObject, groupPod, type GroupSpec } from "./peers.ts";

function pod(group: string, size: number, index: number, node?: string, phase?: string): Parameters<GangObserver["observe"]>[0] {
  return { metadata: { name: `${group}-${index}`, namespace: "ns", labels: { [BENCH_GROUP_LABEL]: group, [BENCH_SIZE_LABEL]: String(size) } }, spec: node === undefined ? {} : { nodeName: node }, status: phase === undefined ? {} : { phase } };
}

test("a group bound within the grace is whole and not half-placed; its bind span is what it took", () => {
  const seen = new GangObserver("ns");
  seen.observe(pod("a", 2, 0), 0);
  seen.observe(pod("a", 2, 1), 0);
  seen.observe(pod("a", 2, 0, "n1"), 100);
  seen.observe(pod("a", 2, 0, "n1"), 150); // the same pod again (a status update): counted once
  assert.equal(seen.group("a")?.bound, 1);
  seen.observe(pod("a", 2, 1, "n2"), 300);
  assert.deepEqual(seen.group("a"), { size: 2, bound: 2, firstBoundAt: 100, wholeAt: 300, endedAt: undefined });
  assert.deepEqual([...seen.partialSpans(10_000)], [["a", 200]]);
  assert.deepEqual(seen.halfPlaced(10_000), []);
  assert.equal(seen.whole(["a"]), true);
});

test("half-placed: partly bound beyond the grace, or still partly bound at the end; a group never bound is not", () => {
  const seen = new GangObserver("ns");
  seen.observe(pod("slow", 2, 0, "n1"), 0);
  seen.observe(pod("slow", 2, 1, "n2"), PARTIAL_GRACE_MS + 1);
  seen.observe(pod("stuck", 3, 0, "n3"), 0);
  seen.observe(pod("waiting", 2, 0), 0);
  assert.deepEqual(seen.halfPlaced(1_000).sort(), ["slow", "stuck"]);
  assert.equal(seen.whole(["slow", "waiting"]), false);
  assert.equal(seen.boundPods(), 3);
});

test("a group has ended when every pod has exited or was deleted; pods of another namespace or without the bench labels are ignored", () => {
  const seen = new GangObserver("ns");
  seen.observe(pod("a", 2, 0, "n1", "Succeeded"), 10);
  seen.observe(pod("a", 2, 1, "n2", "Failed"), 20);
  seen.observe({ ...pod("a", 2, 2, "n3"), metadata: { name: "a-2", namespace: "other", labels: { [BENCH_GROUP_LABEL]: "a", [BENCH_SIZE_LABEL]: "2" } } }, 30);
  seen.observe({ metadata: { name: "plain", namespace: "ns" }, spec: { nodeName: "n1" } }, 30);
  assert.equal(seen.group("a")?.endedAt, 20);
  assert.equal(seen.boundPods(), 2);
  seen.observe(pod("d", 1, 0, "n1"), 40);
  seen.observe(pod("d", 1, 0, "n1"), 50, true);
  assert.equal(seen.group("d")?.endedAt, 50, "deleted (edgeloop ends a group at its deadline so): ended");
});

const A: GroupSpec = { name: "a", size: 3, cpuMillis: 100 };
const B: GroupSpec = { name: "b", size: 2, cpuMillis: 100 };

test("creation order: group by group, or interleaved pod by pod as two job controllers at once; a range of indexes", () => {
  const names = (order: ReturnType<typeof creationOrder>): string[] => order.map(({ group, index }) => `${group.name}${index}`);
  assert.deepEqual(names(creationOrder([A, B], false)), ["a0", "a1", "a2", "b0", "b1"]);
  assert.deepEqual(names(creationOrder([A, B], true)), ["a0", "b0", "a1", "b1", "a2"]);
  assert.deepEqual(names(creationOrder([A, B], false, 0, 2)), ["a0", "a1", "b0", "b1"]);
  assert.deepEqual(names(creationOrder([A, B], false, 2)), ["a2"]);
});

test("each peer is told the group its own way; every pod carries the bench's labels", () => {
  const [edgeloop, coscheduling, native] = (["edgeloop", "coscheduling", "native"] as const).map((peer) => groupPod(peer, A, 0, "ns") as unknown as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> });
  assert.equal(edgeloop?.metadata.labels["fluxnetes.group-name"], "a");
  assert.equal(edgeloop?.metadata.labels["fluxnetes.group-size"], "3");
  assert.equal(edgeloop?.spec.schedulerName, "fluxnetes");
  assert.equal(coscheduling?.metadata.labels["scheduling.x-k8s.io/pod-group"], "a");
  assert.equal(coscheduling?.spec.schedulerName, "scheduler-plugins-scheduler");
  assert.deepEqual(native?.spec.schedulingGroup, { podGroupName: "a" });
  assert.equal(native?.spec.schedulerName, undefined);
  for (const p of [edgeloop, coscheduling, native]) assert.equal(p?.metadata.labels[BENCH_GROUP_LABEL], "a");
  assert.equal(groupObject("edgeloop", A, "ns"), undefined);
  assert.deepEqual((groupObject("coscheduling", A, "ns") as unknown as { spec: unknown }).spec, { minMember: 3 });
  assert.deepEqual((groupObject("native", A, "ns") as unknown as { spec: unknown }).spec, { schedulingPolicy: { gang: { minCount: 3 } } });
});
