import assert from "node:assert/strict";
import { test } from "node:test";
import { schedulePass, type PassReport } from "./pass.ts";
import type { NodeRecord, PodRecord } from "./records.ts";
import { at, gang, node, pod, type PodOptions } from "./testing/build.ts";
import type { Allocation } from "./view.ts";

const NOW = at(1000);

/** A running group of ours: one bound pod per node named, and its allocation ending `ends` seconds after NOW (undefined: no end). */
function running(group: string, nodes: readonly string[], ends: number | undefined, options: PodOptions = {}): { pods: PodRecord[]; allocation: Allocation } {
  const pods = nodes.map((name, i) => pod(`${group}-${i}`, { group, size: nodes.length, nodeName: name, ...options }));
  const allocation: Allocation = { group: `default/${group}`, startedAt: at(0), endsAt: ends === undefined ? undefined : NOW + ends * 1000, pods: pods.map((p) => ({ uid: p.uid, node: p.nodeName ?? "", request: p.request })) };
  return { pods, allocation };
}

function pass(nodes: readonly NodeRecord[], pending: readonly PodRecord[], runs: readonly { pods: PodRecord[]; allocation: Allocation }[] = []): PassReport {
  return schedulePass({ now: NOW, nodes, pods: [...runs.flatMap((r) => r.pods), ...pending], allocations: runs.map((r) => r.allocation) });
}

function started(report: PassReport): string[] {
  return report.starts.map((s) => s.group.replace(/^default\//, ""));
}

test("priority order: the higher-priority group takes the room although it came later", () => {
  const report = pass([node("n1", { cpu: "4" })], [...gang("early", 2, { cpu: "2", created: 1 }), ...gang("urgent", 2, { cpu: "2", created: 9, priority: 1000 })]);
  assert.deepEqual(started(report), ["urgent"]);
  assert.equal(report.reservation?.group, "default/early");
  assert.equal(report.reservation?.at, undefined, "nothing of ours is running: never within known ends");
});

test("groups ahead of the first blocked one start, each all or nothing, with their allocation", () => {
  const report = pass([node("n1", { cpu: "4" }), node("n2", { cpu: "4" })], [...gang("a", 2, { cpu: "2", created: 1, deadline: 60 }), ...gang("b", 3, { cpu: "2", created: 2 })]);
  assert.deepEqual(started(report), ["a"]);
  const start = report.starts[0];
  assert.equal(start?.backfilled, false);
  assert.equal(start?.allocation.startedAt, NOW);
  assert.equal(start?.allocation.endsAt, NOW + 60_000);
  assert.equal(start?.allocation.pods.length, 2);
  assert.equal(report.reservation?.group, "default/b");
  assert.equal(report.reservation?.at, NOW + 60_000, "b fits once a, started in this pass, ends");
});

test("an unsatisfiable group is rejected at once and does not block the queue", () => {
  const report = pass([node("n1", { cpu: "4" }), node("n2", { cpu: "4" })], [...gang("huge", 2, { cpu: "100", created: 1, priority: 10 }), ...gang("small", 2, { cpu: "1", created: 2 })]);
  assert.deepEqual(started(report), ["small"]);
  assert.deepEqual(report.rejected.map((r) => [r.group, r.reason.kind]), [["default/huge", "unsatisfiable"]]);
  assert.match(report.rejected[0]?.reason.text ?? "", /^can never fit on this cluster: /);
  assert.equal(report.reservation, undefined);
});

test("the reservation time is the earliest running end time at which the group fits", () => {
  const nodes = [node("n1", { cpu: "4" }), node("n2", { cpu: "4" }), node("n3", { cpu: "4" })];
  const runs = [running("long", ["n1"], 300, { cpu: "4" }), running("short", ["n2"], 100, { cpu: "4" }), running("forever", ["n3"], undefined, { cpu: "4" })];
  const one = pass(nodes, gang("one", 1, { cpu: "4" }), runs);
  assert.equal(one.reservation?.at, NOW + 100_000);
  assert.deepEqual([...(one.reservation?.placed ?? [])], [["uid-one-0", "n2"]]);
  const two = pass(nodes, gang("two", 2, { cpu: "4" }), runs);
  assert.equal(two.reservation?.at, NOW + 300_000);
  const three = pass(nodes, gang("three", 3, { cpu: "4" }), runs);
  assert.equal(three.reservation?.at, undefined);
  assert.match(three.reservation?.reason.text ?? "", /never within known ends$/);
});

/** Three 4-cpu nodes of pool a, n1 busy for 100 s: a head group of three full nodes reserves at +100 s. */
function blockedHead(backfills: readonly PodRecord[], extraNodes: readonly NodeRecord[] = []): PassReport {
  const pool = { labels: { pool: "a" }, cpu: "4" };
  const nodes = [node("n1", pool), node("n2", pool), node("n3", pool), ...extraNodes];
  return pass(nodes, [...gang("head", 3, { cpu: "4", created: 1, nodeSelector: { pool: "a" } }), ...backfills], [running("busy", ["n1"], 100, { cpu: "4" })]);
}

test("a backfill that fits and ends before the reservation starts", () => {
  const report = blockedHead(gang("quick", 1, { cpu: "4", created: 2, deadline: 50 }));
  assert.equal(report.reservation?.group, "default/head");
  assert.equal(report.reservation?.at, NOW + 100_000);
  assert.deepEqual(started(report), ["quick"]);
  assert.equal(report.starts[0]?.backfilled, true);
});

test("a backfill that fits but would delay the reservation does not start", () => {
  const report = blockedHead(gang("slow", 1, { cpu: "4", created: 2, deadline: 500 }));
  assert.deepEqual(started(report), []);
  assert.deepEqual(report.waiting.map((w) => [w.group, w.reason.kind]), [["default/slow", "delays-reservation"]]);
  assert.match(report.waiting[0]?.reason.text ?? "", /would delay the reservation of default\/head at 2026-01-01T00:18:20.000Z/);
  const service = blockedHead(gang("service", 1, { cpu: "1", created: 2 }));
  assert.deepEqual(started(service), [], "no end at all: it would hold room forever");
});

test("a backfill on resources the reservation does not need starts even though it runs longer", () => {
  const elsewhere = blockedHead(gang("other-pool", 1, { cpu: "4", created: 2, nodeSelector: { pool: "b" } }), [node("n4", { cpu: "4", labels: { pool: "b" } })]);
  assert.deepEqual(started(elsewhere), ["other-pool"]);
  assert.equal(elsewhere.reservation?.at, NOW + 100_000);
  // Same nodes, other resource: the head needs GPUs, the backfill only cpu the head leaves.
  const gpuNodes = [node("g1", { cpu: "8", gpu: "4" }), node("g2", { cpu: "8", gpu: "4" })];
  const report = pass(gpuNodes, [...gang("train", 2, { cpu: "1", gpu: "4", created: 1 }), ...gang("etl", 2, { cpu: "4", created: 2 })], [running("busy", ["g1"], 100, { cpu: "1", gpu: "4" })]);
  assert.equal(report.reservation?.group, "default/train");
  assert.equal(report.reservation?.at, NOW + 100_000);
  assert.deepEqual(started(report), ["etl"]);
});

test("a backfill on a node the planned reservation uses starts when another placement still fits in time", () => {
  const nodes = [node("n1", { cpu: "4" }), node("n2", { cpu: "4" }), node("n3", { cpu: "4" })];
  const long = gang("long", 1, { cpu: "4", created: 2, deadline: 1000 });
  // Only n1 is free now; n2 and n3 free up at +100 s. The head (2 × 4 cpu) is planned on n1 and n2.
  const moved = pass(nodes, [...gang("head", 2, { cpu: "4", created: 1 }), ...long], [running("a", ["n2"], 100, { cpu: "4" }), running("b", ["n3"], 100, { cpu: "4" })]);
  assert.equal(moved.reservation?.at, NOW + 100_000);
  assert.deepEqual(started(moved), ["long"]);
  assert.deepEqual([...(moved.reservation?.placed ?? new Map()).values()], ["n2", "n3"], "re-planned around the backfill");
  // With the head needing all three nodes at +100 s, the same backfill would delay it.
  const blocked = pass(nodes, [...gang("head", 3, { cpu: "4", created: 1 }), ...long], [running("a", ["n2"], 100, { cpu: "4" }), running("b", ["n3"], 100, { cpu: "4" })]);
  assert.deepEqual(started(blocked), []);
  assert.equal(blocked.waiting[0]?.reason.kind, "delays-reservation");
});

test("with no reservation time, only groups with a known end backfill", () => {
  const nodes = [node("n1", { cpu: "4" }), node("n2", { cpu: "4" })];
  const report = pass(nodes, [...gang("head", 2, { cpu: "4", created: 1 }), ...gang("job", 1, { cpu: "1", created: 2, deadline: 10 }), ...gang("svc", 1, { cpu: "1", created: 3 })], [running("forever", ["n1"], undefined, { cpu: "4" })]);
  assert.equal(report.reservation?.at, undefined);
  assert.deepEqual(started(report), ["job"]);
  assert.deepEqual(report.waiting.map((w) => w.group), ["default/svc"]);
});

test("groups behind the reservation that do not fit say why", () => {
  const cpu = blockedHead(gang("many", 3, { cpu: "3", created: 2 }));
  assert.equal(cpu.waiting[0]?.reason.text, "cpu: 3 pods need 1 more on 3 candidate nodes");
});
