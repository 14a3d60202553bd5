import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { DeleteAction, EventAction, StatusAction } from "../../../../protocol/plan.ts";
import { rawNode, rawPod, type PodOptions } from "../core/testing/build.ts";
import { GangQueueLogic, type GangQueueOptions } from "./scheduler.ts";
import { at, batch, binds, event, events, list, scheduled, with_ } from "./testing/batches.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";

const OPTIONS: GangQueueOptions = { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 60, bindCheckSeconds: 10 };

/** A scheduler over a fresh in-memory database. */
function scheduler(options: GangQueueOptions = OPTIONS): GangQueueLogic {
  return new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), options);
}

/** Pod `name` of group `group` (size `size`, in `default`). */
function member(name: string, group: string, size: number, options: PodOptions = {}): Record<string, unknown> {
  return rawPod(name, { group, size, cpu: "1", ...options });
}

/** A pod owned by Job `job`. */
function owned(pod: Record<string, unknown>, job: string): Record<string, unknown> {
  return with_(pod, { metadata: { ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: job, uid: `uid-job-${job}`, controller: true }] } });
}

test("pods of a group arriving over several batches bind all at once; a pod seen twice counts once", () => {
  const gang = scheduler();
  assert.deepEqual(gang.apply(list([rawNode("n1", { cpu: "8" })])).actions, []);
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", member("a-0", "g", 3))], 1)).actions), []);
  const twice = gang.apply(batch([event("ADDED", member("a-1", "g", 3)), event("MODIFIED", member("a-1", "g", 3)), event("ADDED", member("a-0", "g", 3))], 2));
  assert.deepEqual(binds(twice.actions), [], "two distinct pods of three");
  assert.equal(gang.groups(at(2))[0]?.present, 2);
  const plan = gang.apply(batch([event("ADDED", member("a-2", "g", 3))], 3));
  assert.deepEqual(binds(plan.actions), ["a-0→n1", "a-1→n1", "a-2→n1"]);
  assert.deepEqual(events(plan.actions), ["Normal Scheduled a-0", "Normal Scheduled a-1", "Normal Scheduled a-2"]);
  const scheduled = plan.actions.find((a) => a.type === "event");
  assert.equal(scheduled?.type === "event" && scheduled.message, "Successfully assigned default/a-0 to n1 (gang default/g, 3 pods)");
  assert.equal(scheduled?.type === "event" && scheduled.ifPreviousApplied, true);
  assert.deepEqual(binds(gang.apply(batch([event("MODIFIED", member("a-2", "g", 3))], 4)).actions), [], "an allocated group is not bound again");
});

test("nothing is decided before a list completes or while one is sent; a relist removes what it did not list", () => {
  const gang = scheduler();
  assert.deepEqual(gang.apply(batch([event("ADDED", rawNode("n1")), event("ADDED", member("a-0", "g", 1))])).actions, [], "no list yet");
  assert.deepEqual(gang.apply(batch([event("ADDED", rawNode("n1"), true)], 1, { relist: true, partialList: true })).actions, []);
  assert.deepEqual(gang.apply(batch([event("ADDED", member("b-0", "h", 2), true)], 2, { partialList: true })).actions, []);
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", member("a-0", "g", 1), true)], 3)).actions), ["a-0→n1"]);
  assert.deepEqual(gang.groups(at(3)).map((g) => [g.group, g.state]), [["g", "running"], ["h", "provisional"]]);
  gang.apply(list([rawNode("n1"), rawPod("a-0", { group: "g", size: 1, cpu: "1", nodeName: "n1" })], 4));
  assert.deepEqual(gang.groups(at(4)).map((g) => [g.group, g.state]), [["g", "running"]], "b-0 was not listed again");
});

test("an unsatisfiable group gets one Warning and PodScheduled False per pod, once", () => {
  const gang = scheduler();
  const plan = gang.apply(list([rawNode("n1", { cpu: "4" }), member("x-0", "big", 2, { cpu: "8" }), member("x-1", "big", 2, { cpu: "8" })]));
  assert.deepEqual(events(plan.actions), ["Warning FailedScheduling x-0", "Warning FailedScheduling x-1"]);
  const status = plan.actions.filter((a): a is StatusAction => a.type === "status");
  assert.equal(status.length, 2);
  const conditions = status[0]?.status["conditions"] as Record<string, unknown>[];
  assert.equal(conditions.length, 1);
  assert.equal(conditions[0]?.["type"], "PodScheduled");
  assert.equal(conditions[0]?.["status"], "False");
  assert.equal(conditions[0]?.["reason"], "Unschedulable");
  assert.match(String(conditions[0]?.["message"]), /can never fit on this cluster: cpu/);
  assert.deepEqual(gang.apply(batch([event("MODIFIED", member("x-0", "big", 2, { cpu: "8" }))], 5)).actions, [], "not reported again");
  const row = gang.groups(at(5))[0];
  assert.equal(row?.state, "rejected");
  assert.equal(row?.reason?.kind, "unsatisfiable");
});

test("backfill, and groups() rows for every state", () => {
  const gang = scheduler();
  const plan = gang.apply(
    list([
      rawNode("n1", { cpu: "4" }),
      rawPod("r-0", { group: "r", size: 1, cpu: "3", deadline: 100, created: 1 }),
      rawPod("h-0", { group: "head", size: 1, cpu: "4", created: 2 }),
      rawPod("s-0", { group: "small", size: 1, cpu: "1", deadline: 50, created: 3 }),
      rawPod("w-0", { group: "wait", size: 1, cpu: "1", created: 4 }),
      rawPod("p-0", { group: "prov", size: 3, cpu: "1", created: 5 }),
      rawPod("x-0", { group: "never", size: 1, cpu: "100", created: 6 }),
    ]),
  );
  assert.deepEqual(binds(plan.actions), ["r-0→n1", "s-0→n1"], "small backfills behind head's reservation");
  const rows = gang.groups(at(0));
  assert.deepEqual(rows.map((g) => [g.group, g.state, g.position]), [
    ["head", "reserved", 1],
    ["never", "rejected", null],
    ["prov", "provisional", null],
    ["r", "running", null],
    ["small", "running", null],
    ["wait", "pending", 2],
  ]);
  const head = rows.find((g) => g.group === "head");
  assert.equal(head?.reservedStart, new Date(at(100)).toISOString());
  assert.deepEqual(head?.nodes, ["n1"]);
  assert.equal(head?.reason?.resource, "cpu");
  const r = rows.find((g) => g.group === "r");
  assert.deepEqual([r?.nodes, r?.deadline, r?.present, r?.size], [["n1"], new Date(at(100)).toISOString(), 1, 1]);
  assert.equal(rows.find((g) => g.group === "wait")?.waitingFor, "cpu: 1 pod needs 1 more on 1 candidate node");
  assert.deepEqual([rows.find((g) => g.group === "prov")?.present, rows.find((g) => g.group === "prov")?.size], [1, 3]);
});

test("a finished group releases its resources and a waiting group starts; a deleted pod releases nothing until the group is done", () => {
  const gang = scheduler();
  const a0 = rawPod("a-0", { group: "a", size: 2, cpu: "2", created: 1 });
  const a1 = rawPod("a-1", { group: "a", size: 2, cpu: "2", created: 1 });
  assert.deepEqual(binds(gang.apply(list([rawNode("n1", { cpu: "4" }), a0, a1, rawPod("b-0", { group: "b", size: 1, cpu: "4", created: 2 })])).actions), ["a-0→n1", "a-1→n1"]);
  const bound = (pod: Record<string, unknown>, phase: string): Record<string, unknown> => with_(pod, { spec: { nodeName: "n1" }, status: { phase } });
  assert.deepEqual(binds(gang.apply(batch([event("MODIFIED", bound(a0, "Running")), event("DELETED", bound(a1, "Running"))], 1)).actions), [], "a-0 still runs");
  assert.deepEqual(binds(gang.apply(batch([event("MODIFIED", bound(a0, "Succeeded"))], 2)).actions), ["b-0→n1"]);
  assert.deepEqual(gang.groups(at(2)).map((g) => [g.group, g.state]), [["b", "running"]]);
});

test("a deadline deletes the group's Job once (root delete) and warns its pods", () => {
  const gang = scheduler();
  const pods = [0, 1].map((i) => owned(rawPod(`j-${i}`, { group: "j", size: 2, cpu: "1", deadline: 30 }), "train"));
  const solo = owned(rawPod("solo", { cpu: "1" }), "other");
  assert.deepEqual(binds(gang.apply(list([rawNode("n1"), ...pods, solo])).actions), ["j-0→n1", "j-1→n1", "solo→n1"]);
  const bound = [...pods, solo].map((pod) => event("MODIFIED", with_(pod, { spec: { nodeName: "n1" }, status: { phase: "Running" } })));
  assert.deepEqual(gang.apply(batch([...bound, ...[...pods, solo].map(scheduled)], 1)).actions, []);
  assert.equal(gang.nextWake(), at(10), "the bind check first");
  assert.deepEqual(gang.due(at(10)).actions, [], "every pod is seen bound: nothing is sent again");
  assert.equal(gang.nextWake(), at(20), "then the check of their Scheduled Events");
  assert.deepEqual(gang.due(at(20)).actions, []);
  assert.equal(gang.nextWake(), at(30));
  assert.deepEqual(gang.due(at(29)).actions, []);
  const plan = gang.due(at(30));
  const deletes = plan.actions.filter((a): a is DeleteAction => a.type === "delete");
  assert.deepEqual(deletes, [{ type: "delete", target: { apiVersion: "batch/v1", kind: "Job", namespace: "default", name: "train", uid: "uid-job-train" }, propagationPolicy: "Background", root: true }]);
  assert.deepEqual(events(plan.actions), ["Warning DeadlineExceeded j-0", "Warning DeadlineExceeded j-1"]);
  assert.equal(gang.nextWake(), undefined, "solo declares no deadline: the default duration only estimates its end");
  assert.deepEqual(gang.apply(batch([], 31)).actions, [], "nothing is bound again");
  assert.deepEqual(gang.groups(at(31)).map((g) => [g.group, g.state]), [["fluxnetes-group-default-solo", "running"], ["j", "running"]], "j holds its room until its pods are gone");
  gang.apply(batch(pods.map((pod) => event("DELETED", with_(pod, { spec: { nodeName: "n1" } }))), 32));
  assert.deepEqual(gang.groups(at(32)).map((g) => g.group), ["fluxnetes-group-default-solo"], "then its rows go");
});

test("a bind the relay did not apply is sent again at the bind check, until the pod is seen bound", () => {
  const gang = scheduler();
  const pods = [0, 1].map((i) => member(`a-${i}`, "g", 2));
  assert.deepEqual(binds(gang.apply(list([rawNode("n1"), ...pods])).actions), ["a-0→n1", "a-1→n1"]);
  // a-0's bind landed; a-1's was lost (the relay gave up on it, or died before applying it).
  gang.apply(batch([event("MODIFIED", with_(pods[0] as Record<string, unknown>, { spec: { nodeName: "n1" } }))], 1));
  assert.equal(gang.nextWake(), at(10));
  const again = gang.due(at(10));
  assert.deepEqual(binds(again.actions), ["a-1→n1"], "only the pod not seen bound, to the node it was given");
  assert.equal(again.concurrency, 32);
  assert.deepEqual(events(again.actions), ["Normal Scheduled a-1"]);
  assert.equal(gang.nextWake(), at(20), "checked again");
  gang.apply(batch([event("MODIFIED", with_(pods[1] as Record<string, unknown>, { spec: { nodeName: "n1" } }))], 15));
  assert.deepEqual(gang.due(at(20)).actions, []);
  assert.equal(gang.nextWake(), at(30), "no bind check left once all are bound: the check of their Scheduled Events");
});

test("a running group's later pod (a Job's replacement, a pod beyond the size) is placed on its own and extends the group's allocation", () => {
  const gang = scheduler();
  const first = [member("j-a", "job-2", 1), member("j-b", "job-2", 1)];
  assert.deepEqual(binds(gang.apply(list([rawNode("n1", { cpu: "3" }), ...first.slice(0, 1)])).actions), ["j-a→n1"]);
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", first[1] as Record<string, unknown>)], 1)).actions), ["j-b→n1"], "not left waiting behind its own group's allocation");
  const rows = gang.groups(at(1));
  assert.deepEqual(rows.map((r) => [r.group, r.state, r.present]), [["job-2", "running", 2]]);
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", member("j-c", "job-2", 1))], 2)).actions), ["j-c→n1"]);
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", member("j-d", "job-2", 1))], 3)).actions), [], "the node is full: the allocation holds all three");
});

test("the terminating pods of a group ended at its deadline count as freed soon: the head is reserved for then, and a longer group does not backfill in front of it", () => {
  const gang = scheduler();
  const big = [0, 1].map((i) => owned(rawPod(`big-${i}`, { group: "big", size: 2, cpu: "3", deadline: 60, created: 1 }), "big"));
  const nodes = [rawNode("n1", { cpu: "4" }), rawNode("n2", { cpu: "4" })];
  assert.deepEqual(binds(gang.apply(list([...nodes, ...big])).actions), ["big-0→n1", "big-1→n2"]);
  gang.apply(batch(big.map((pod, i) => event("MODIFIED", with_(pod, { spec: { nodeName: `n${i + 1}` }, status: { phase: "Running" } }))), 1));
  gang.due(at(10));
  assert.equal(gang.due(at(60)).actions.filter((a) => a.type === "delete").length, 1, "the Job is deleted");
  // The garbage collector marks the pods deleted (30 s of grace); meanwhile two groups arrive:
  // train needs both nodes whole, long fits in what is free now but runs an hour.
  const terminating = big.map((pod, i) => event("MODIFIED", with_(pod, { metadata: { deletionTimestamp: new Date(at(91)).toISOString() }, spec: { nodeName: `n${i + 1}` }, status: { phase: "Running" } })));
  const train = [0, 1].map((i) => rawPod(`train-${i}`, { group: "train", size: 2, cpu: "4", created: 61 }));
  const long = rawPod("long-0", { group: "long", size: 1, cpu: "1", created: 62 });
  const plan = gang.apply(batch([...terminating, ...train.map((pod) => event("ADDED", pod)), event("ADDED", long)], 61));
  assert.deepEqual(binds(plan.actions), [], "long would delay train: it waits");
  const rows = gang.groups(at(61));
  assert.equal(rows.find((r) => r.group === "train")?.reservedStart, new Date(at(91)).toISOString(), "train is reserved for when the pods are gone");
  assert.equal(rows.find((r) => r.group === "long")?.reason?.kind, "delays-reservation");
  const gone = gang.apply(batch(big.map((pod) => event("DELETED", with_(pod, { spec: { nodeName: "n1" } }))), 70));
  assert.deepEqual(binds(gone.actions), ["train-0→n1", "train-1→n2"], "the pods gone, train starts; long waits for room");
});

test("an arrival timeout warns the present pods once with the counts", () => {
  const gang = scheduler();
  gang.apply(list([rawNode("n1"), member("a-0", "g", 3), member("a-1", "g", 3)], 10));
  assert.equal(gang.nextWake(), at(70));
  const plan = gang.due(at(70));
  assert.deepEqual(events(plan.actions), ["Warning GangIncomplete a-0", "Warning GangIncomplete a-1"]);
  const message = plan.actions[0]?.type === "event" ? plan.actions[0].message : "";
  assert.equal(message, "2 of 3 pods of group default/g arrived after 60s; waiting for 1 more");
  assert.deepEqual(gang.due(at(200)).actions, []);
  assert.equal(gang.nextWake(), undefined);
});

test("a restart keeps everything and a replayed list binds nothing twice", () => {
  const dir = mkdtempSync(join(tmpdir(), "gang-"));
  try {
    const path = join(dir, "state.sqlite");
    const first = new DatabaseSync(path);
    const nodes = [rawNode("n1", { cpu: "2" })];
    const a = [member("a-0", "g", 2), member("a-1", "g", 2)];
    assert.deepEqual(binds(new GangQueueLogic(new SqliteSql(first), OPTIONS).apply(list([...nodes, ...a])).actions), ["a-0→n1", "a-1→n1"]);
    first.close();
    const second = new GangQueueLogic(new SqliteSql(new DatabaseSync(path)), OPTIONS);
    assert.deepEqual(second.groups(at(1)).map((g) => [g.group, g.state]), [["g", "running"]]);
    // a-0 is seen bound, a-1's binding is still in flight: neither is bound again.
    const replay = [...nodes, with_(a[0] as Record<string, unknown>, { spec: { nodeName: "n1" }, status: { phase: "Running" } }), a[1] as Record<string, unknown>];
    assert.deepEqual(gang2(second, replay), []);
    assert.deepEqual(binds(second.apply(batch([event("ADDED", member("b-0", "h", 1))], 3)).actions), [], "n1 is full: the allocation holds a-1's room");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The binds of a replayed list, sent in two chunks. */
function gang2(gang: GangQueueLogic, objects: Record<string, unknown>[]): string[] {
  const half = Math.ceil(objects.length / 2);
  const head = gang.apply(batch(objects.slice(0, half).map((o) => event("ADDED", o, true)), 2, { relist: true, partialList: true }));
  const tail = gang.apply(batch(objects.slice(half).map((o) => event("ADDED", o, true)), 2));
  return [...binds(head.actions), ...binds(tail.actions)];
}

test("batches of other schedulers' pods alone run no pass, yet what they take of a node still counts for the gang that comes", () => {
  const gang = scheduler();
  gang.apply(list([rawNode("n1", { cpu: "8" }), rawNode("n2", { cpu: "8" })]));
  const other = (name: string, nodeName: string): Record<string, unknown> => rawPod(name, { scheduler: "default-scheduler", cpu: "6", nodeName });
  assert.deepEqual(gang.apply(batch([event("ADDED", other("web-0", "n1")), event("ADDED", other("web-1", "n2"))], 1)).actions, []);
  assert.deepEqual(gang.groups(at(1)), [], "no gang stored");
  const plan = gang.apply(batch([event("ADDED", member("a-0", "g", 2, { cpu: "3" })), event("ADDED", member("a-1", "g", 2, { cpu: "3" }))], 2));
  assert.deepEqual(binds(plan.actions), [], "2 CPUs left on each node: a group of two 3-CPU pods does not fit");
  assert.deepEqual(binds(gang.apply(batch([event("DELETED", other("web-0", "n1"))], 3)).actions), ["a-0→n1", "a-1→n1"], "web-0 gone: n1 has room");
});

test("a pod whose fluxnetes.group-size is not a size is refused: never bound, one FailedScheduling Warning naming the label, PodScheduled False; fixed, it joins its group", () => {
  const gang = new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 0 });
  const huge = rawPod("huge-0", { group: "huge", cpu: "1" });
  const bad = (pod: Record<string, unknown>, size: string): Record<string, unknown> => with_(pod, { metadata: { labels: { "fluxnetes.group-name": String((pod["metadata"] as { labels: Record<string, string> }).labels["fluxnetes.group-name"]), "fluxnetes.group-size": size } } });
  const pods = [bad(huge, "1000000"), bad(rawPod("word-0", { group: "word", cpu: "1" }), "three")];
  const plan = gang.apply(list([rawNode("n1"), ...pods]));
  assert.deepEqual(binds(plan.actions), [], "neither is a group of 1, nor of 10000");
  const warnings = plan.actions.filter((a): a is EventAction => a.type === "event");
  assert.deepEqual(warnings.map((w) => `${w.eventType} ${w.reason} ${w.target.name}: ${w.message}`).sort(), [
    'Warning FailedScheduling huge-0: pod default/huge-0 refused: metadata.labels["fluxnetes.group-size"] is "1000000": a group size is a whole number from 1 to 10000',
    'Warning FailedScheduling word-0: pod default/word-0 refused: metadata.labels["fluxnetes.group-size"] is "three": a group size is a whole number from 1 to 10000',
  ]);
  const statuses = plan.actions.filter((a) => a.type === "status");
  assert.equal(statuses.length, 2, "PodScheduled False/Unschedulable on each");
  const rows = gang.groups(at(1)).map((r) => [r.group, r.state, r.present, r.size, r.waitingFor]);
  assert.deepEqual(rows, [
    ["huge", "rejected", 1, 0, 'pod huge-0 refused: metadata.labels["fluxnetes.group-size"] is "1000000": a group size is a whole number from 1 to 10000'],
    ["word", "rejected", 1, 0, 'pod word-0 refused: metadata.labels["fluxnetes.group-size"] is "three": a group size is a whole number from 1 to 10000'],
  ]);
  assert.deepEqual(gang.apply(batch([event("MODIFIED", pods[0] ?? {})], 5)).actions, [], "reported once");
  // The label fixed (labels are mutable): the pod is a group of 1 and is bound.
  assert.deepEqual(binds(gang.apply(batch([event("MODIFIED", bad(huge, "1"))], 6)).actions), ["huge-0→n1"]);
});
