import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { EventAction } from "../../../../protocol/plan.ts";
import { rawNode, rawPod, type NodeOptions } from "../core/testing/build.ts";
import { GangQueueLogic, type GangQueueOptions } from "./scheduler.ts";
import { at, batch, binds, event, events, list, with_ } from "./testing/batches.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";

const OPTIONS: GangQueueOptions = { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 0, bindCheckSeconds: 10 };

/** A scheduler over a fresh in-memory database. */
function scheduler(): GangQueueLogic {
  return new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), OPTIONS);
}

/** Pod `name` of group `group` (size `size`) requesting `cpu`. */
function member(name: string, group: string, size: number, cpu: string): Record<string, unknown> {
  return rawPod(name, { group, size, cpu });
}

/** `pod` as the watch shows it once bound to `node`. */
function boundTo(pod: Record<string, unknown>, node: string): Record<string, unknown> {
  return with_(pod, { spec: { nodeName: node }, status: { phase: "Running" } });
}

/** The messages of a plan's Events of `reason`. */
function messages(actions: readonly { type: string }[], reason: string): string[] {
  return actions.filter((a): a is EventAction => a.type === "event" && (a as EventAction).reason === reason).map((a) => a.message);
}

/** The nodes of a group's row. */
function nodesOf(gang: GangQueueLogic, group: string, seconds: number): string[] | undefined {
  return gang.groups(at(seconds)).find((row) => row.group === group && row.state === "running")?.nodes;
}

/** Two 2-cpu pods of group g, bound (by best fit) to n1 of two 4-cpu nodes; their binds are never applied. */
function startedOnN1(second: NodeOptions = { cpu: "4" }): { gang: GangQueueLogic; pods: Record<string, unknown>[] } {
  const gang = scheduler();
  const pods = [member("a-0", "g", 2, "2"), member("a-1", "g", 2, "2")];
  assert.deepEqual(binds(gang.apply(list([rawNode("n1", { cpu: "4" }), rawNode("n2", second), ...pods])).actions), ["a-0→n1", "a-1→n1"]);
  return { gang, pods };
}

test("a bind sent again after its node was deleted goes to a node that exists and fits, and the allocation follows", () => {
  const { gang } = startedOnN1();
  gang.apply(batch([event("DELETED", rawNode("n1", { cpu: "4" }))], 5));
  const plan = gang.due(at(10));
  assert.deepEqual(binds(plan.actions), ["a-0→n2", "a-1→n2"]);
  assert.deepEqual(events(plan.actions), ["Normal Scheduled a-0", "Normal Scheduled a-1"]);
  assert.equal(messages(plan.actions, "Scheduled")[0], "Successfully assigned default/a-0 to n2 (gang default/g, bind sent again, moved from n1: node n1 is gone)");
  assert.deepEqual(nodesOf(gang, "g", 10), ["n2"], "the allocation holds n2 now");
  assert.deepEqual(binds(gang.due(at(20)).actions), ["a-0→n2", "a-1→n2"], "sent again to n2, not moved twice");
});

test("a held node cordoned, NotReady, tainted or with its room taken no longer takes the pods: they move", () => {
  const cases: { readonly why: string; readonly change: Record<string, unknown> }[] = [
    { why: "node n1: node is unschedulable (cordoned)", change: rawNode("n1", { cpu: "4", unschedulable: true }) },
    { why: "node n1: node is not Ready", change: rawNode("n1", { cpu: "4", ready: false }) },
    { why: "node n1: node had untolerated taint {dedicated=infra:NoSchedule}", change: rawNode("n1", { cpu: "4", taints: [{ key: "dedicated", value: "infra", effect: "NoSchedule" }] }) },
    { why: "node n1 no longer has room for it (cpu)", change: rawPod("web", { scheduler: "default-scheduler", nodeName: "n1", cpu: "3" }) },
  ];
  for (const { why, change } of cases) {
    const { gang } = startedOnN1();
    gang.apply(batch([event("MODIFIED", change)], 5));
    const plan = gang.due(at(10));
    assert.deepEqual(binds(plan.actions), ["a-0→n2", "a-1→n2"], why);
    assert.match(messages(plan.actions, "Scheduled")[0] ?? "", new RegExp(`moved from n1: ${why.replace(/[{}()]/g, "\\$&")}\\)$`), why);
  }
});

test("a held node that still fits keeps its pods: the bind is sent again to it", () => {
  const { gang } = startedOnN1();
  gang.apply(batch([event("MODIFIED", rawNode("n1", { cpu: "4", labels: { heartbeat: "1" } }))], 5));
  const plan = gang.due(at(10));
  assert.deepEqual(binds(plan.actions), ["a-0→n1", "a-1→n1"]);
  assert.match(messages(plan.actions, "Scheduled")[0] ?? "", /\(gang default\/g, bind sent again\)$/);
});

test("only the pods that lost their node move; the others keep theirs", () => {
  const gang = scheduler();
  const pods = [member("a-0", "g", 2, "3"), member("a-1", "g", 2, "3")];
  const nodes = [rawNode("n1", { cpu: "4" }), rawNode("n2", { cpu: "4" }), rawNode("n3", { cpu: "4" })];
  assert.deepEqual(binds(gang.apply(list([...nodes, ...pods])).actions), ["a-0→n1", "a-1→n2"]);
  gang.apply(batch([event("DELETED", rawNode("n2", { cpu: "4" }))], 5));
  assert.deepEqual(binds(gang.due(at(10)).actions), ["a-0→n1", "a-1→n3"]);
  assert.deepEqual(nodesOf(gang, "g", 10), ["n1", "n3"]);
});

test("a group none of whose pods is bound moves whole when the pod that lost its node fits only where another one was held", () => {
  const gang = scheduler();
  const pods = [member("a-0", "g", 2, "2"), member("b-0", "g", 2, "4")];
  assert.deepEqual(binds(gang.apply(list([rawNode("n1", { cpu: "5" }), rawNode("n2", { cpu: "4" }), ...pods])).actions), ["a-0→n1", "b-0→n2"]);
  gang.apply(batch([event("DELETED", rawNode("n2", { cpu: "4" })), event("ADDED", rawNode("n3", { cpu: "3" }))], 5));
  // b-0 alone fits nowhere (3 cpu free on n1 beside a-0's hold, 3 on n3); the two together do.
  const plan = gang.due(at(10));
  assert.deepEqual(binds(plan.actions), ["a-0→n3", "b-0→n1"]);
  assert.deepEqual(messages(plan.actions, "Scheduled").sort(), [
    "Successfully assigned default/a-0 to n3 (gang default/g, bind sent again, moved from n1: placed again with its group)",
    "Successfully assigned default/b-0 to n1 (gang default/g, bind sent again, moved from n2: node n2 is gone)",
  ]);
  assert.deepEqual(nodesOf(gang, "g", 10), ["n1", "n3"]);
});

test("a group none of whose pods is bound that fits nowhere now gives its allocation back and waits whole in the queue; room back, it starts whole", () => {
  const gang = scheduler();
  const pods = [member("a-0", "g", 2, "3"), member("a-1", "g", 2, "3")];
  const web = rawPod("web", { scheduler: "default-scheduler", nodeName: "n3", cpu: "2" });
  assert.deepEqual(binds(gang.apply(list([rawNode("n1", { cpu: "4" }), rawNode("n2", { cpu: "4" }), rawNode("n3", { cpu: "4" }), web, ...pods])).actions), ["a-0→n1", "a-1→n2"]);
  gang.apply(batch([event("DELETED", rawNode("n2", { cpu: "4" }))], 5));
  const plan = gang.due(at(10));
  assert.deepEqual(binds(plan.actions), [], "a-1 fits nowhere, and a-0 alone would be half a group");
  assert.deepEqual(events(plan.actions), ["Warning FailedScheduling a-0", "Warning FailedScheduling a-1"]);
  assert.equal(
    messages(plan.actions, "FailedScheduling")[0],
    "gang default/g: node n2 is gone; no node takes it now: cpu: enough free in total but fragmented: a pod needs 3 and the nearest of 2 candidate nodes is 1 short; none of its pods is bound, so its allocation is released and the group waits in the queue again",
  );
  assert.equal(gang.nextWake(), undefined, "no bind check left");
  const row = gang.groups(at(10)).find((r) => r.group === "g");
  assert.deepEqual([row?.state, row?.position], ["reserved", 1], "queued again, at the head");
  assert.deepEqual(binds(gang.apply(batch([event("DELETED", web)], 12)).actions), ["a-0→n1", "a-1→n3"], "the next pass places it whole");
});

test("a partly bound group keeps its bound pods; a pod that fits nowhere leaves the allocation and is placed when room comes", () => {
  const gang = scheduler();
  const pods = [member("a-0", "g", 2, "3"), member("a-1", "g", 2, "3")];
  assert.deepEqual(binds(gang.apply(list([rawNode("n1", { cpu: "4" }), rawNode("n2", { cpu: "4" }), ...pods])).actions), ["a-0→n1", "a-1→n2"]);
  gang.apply(batch([event("MODIFIED", boundTo(pods[0] as Record<string, unknown>, "n1")), event("DELETED", rawNode("n2", { cpu: "4" }))], 5));
  const plan = gang.due(at(10));
  assert.deepEqual(binds(plan.actions), []);
  assert.deepEqual(events(plan.actions), ["Warning FailedScheduling a-1"]);
  assert.match(messages(plan.actions, "FailedScheduling")[0] ?? "", /^gang default\/g: node n2 is gone; no node takes it now: .*; the group's bound pods keep running and this pod waits in the queue for room$/);
  const rows = gang.groups(at(10)).filter((r) => r.group === "g");
  assert.deepEqual(rows.map((r) => [r.state, r.present]).sort(), [["reserved", 1], ["running", 2]], "the bound pod runs (its row counts the group's present pods); the other waits in the queue");
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", rawNode("n3", { cpu: "4" }))], 12)).actions), ["a-1→n3"], "room back: it extends the allocation");
  assert.deepEqual(nodesOf(gang, "g", 12), ["n1", "n3"]);
});

test("bind checks of one firing share the room: two groups that lost their node do not both take the one left", () => {
  const gang = scheduler();
  const pods = [member("a-0", "a", 1, "3"), member("b-0", "b", 1, "3")];
  assert.deepEqual(binds(gang.apply(list([rawNode("n1", { cpu: "4" }), rawNode("n2", { cpu: "4" }), rawNode("n3", { cpu: "4" }), ...pods])).actions), ["a-0→n1", "b-0→n2"]);
  gang.apply(batch([event("DELETED", rawNode("n1")), event("DELETED", rawNode("n2"))], 5));
  const plan = gang.due(at(10));
  assert.deepEqual(binds(plan.actions), ["a-0→n3"], "a's check came first and took n3");
  assert.deepEqual(events(plan.actions), ["Normal Scheduled a-0", "Warning FailedScheduling b-0"]);
});
