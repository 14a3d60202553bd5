import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { EventAction } from "../../../../protocol/plan.ts";
import { rawNode, rawPod } from "../core/testing/build.ts";
import { GangQueueLogic, type GangQueueOptions } from "./scheduler.ts";
import { at, batch, binds, event, events, list, scheduled, with_ } from "./testing/batches.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";

const OPTIONS: GangQueueOptions = { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 0, bindCheckSeconds: 10 };

/** Pod `name` of group g (size `size`) asking 1 cpu. */
function member(name: string, size: number): Record<string, unknown> {
  return rawPod(name, { group: "g", size, cpu: "1" });
}

/** `pod` as the watch shows it once bound to `node`. */
function boundTo(pod: Record<string, unknown>, node: string): Record<string, unknown> {
  return with_(pod, { spec: { nodeName: node }, status: { phase: "Running" } });
}

/** The Events of `reason` in a plan. */
function eventsOf(actions: readonly { type: string }[], reason: string): EventAction[] {
  return actions.filter((a): a is EventAction => a.type === "event" && (a as EventAction).reason === reason);
}

/**
 * A group of `size` started on nodes n1..n3 (4 cpu each), every bind applied and seen by
 * the watch, its bind check fired and done: the queue holds it as running, whole.
 */
function runningWhole(size: number): { gang: GangQueueLogic; pods: Record<string, unknown>[]; placed: Map<string, string> } {
  const gang = new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), OPTIONS);
  const pods = Array.from({ length: size }, (_, i) => member(`p-${i}`, size));
  const nodes = [rawNode("n1", { cpu: "4" }), rawNode("n2", { cpu: "4" }), rawNode("n3", { cpu: "4" })];
  const plan = gang.apply(list([...nodes, ...pods]));
  const placed = new Map(binds(plan.actions).map((text) => text.split("→") as [string, string]));
  assert.equal(placed.size, size, "started whole");
  const bound = pods.map((pod) => event("MODIFIED", boundTo(pod, placed.get(String((pod["metadata"] as { name: string }).name)) ?? "")));
  gang.apply(batch([...bound, ...pods.map(scheduled)], 2));
  assert.deepEqual(gang.due(at(10)).actions, [], "every pod seen bound: the bind check sends nothing");
  assert.deepEqual(gang.due(at(20)).actions, [], "nor the check of their Scheduled Events");
  assert.equal(gang.nextWake(), undefined, "and no check is left");
  return { gang, pods, placed };
}

/** The relist after an API server came back without some binds it had acknowledged: `lost` pods unbound again, the others bound. */
function relistAfterLoss(pods: readonly Record<string, unknown>[], placed: ReadonlyMap<string, string>, lost: ReadonlySet<string>, seconds: number): ReturnType<typeof list> {
  const nodes = [rawNode("n1", { cpu: "4" }), rawNode("n2", { cpu: "4" }), rawNode("n3", { cpu: "4" })];
  const seen = pods.map((pod) => {
    const name = String((pod["metadata"] as { name: string }).name);
    return lost.has(name) ? pod : boundTo(pod, placed.get(name) ?? "");
  });
  return list([...nodes, ...seen], seconds);
}

test("binds the API server lost after the watch showed them are seen in the next relist, and sent again to the pods' reserved nodes, with a BindLost Warning", () => {
  const { gang, pods, placed } = runningWhole(6);
  const lost = new Set(["p-1", "p-4"]);
  const plan = gang.apply(relistAfterLoss(pods, placed, lost, 30));
  assert.deepEqual(binds(plan.actions), [...lost].map((name) => `${name}→${placed.get(name) ?? ""}`).sort(), "the lost binds, to the nodes the group holds");
  const warnings = eventsOf(plan.actions, "BindLost");
  assert.deepEqual(warnings.map((w) => [w.eventType, w.target.name]).sort(), [["Warning", "p-1"], ["Warning", "p-4"]]);
  assert.match(warnings[0]?.message ?? "", /^gang default\/g: pod default\/p-[14] was seen bound to n\d but is unbound now \(the API server lost its bind\); 2 of the group's 6 pods lost theirs; bind sent again to n\d$/);
  assert.equal(eventsOf(plan.actions, "Scheduled").length, 2, "a Scheduled Event with each bind sent again");
  assert.equal(gang.nextWake(), at(40), "a bind check follows them until they are seen bound");
  const rows = gang.groups(at(30)).filter((row) => row.group === "g");
  assert.deepEqual(rows.map((row) => [row.state, row.present]), [["running", 6]]);
});

test("a lost bind is detected once: the relist replayed sends nothing new; a bind check sends again only what is still unbound", () => {
  const { gang, pods, placed } = runningWhole(3);
  const first = gang.apply(relistAfterLoss(pods, placed, new Set(["p-0"]), 30));
  assert.equal(eventsOf(first.actions, "BindLost").length, 1);
  const again = gang.apply(relistAfterLoss(pods, placed, new Set(["p-0"]), 31));
  assert.deepEqual(eventsOf(again.actions, "BindLost"), [], "the bind check owns it now");
  assert.deepEqual(binds(again.actions), []);
  assert.deepEqual(binds(gang.due(at(40)).actions), [`p-0→${placed.get("p-0") ?? ""}`]);
  gang.apply(batch([event("MODIFIED", boundTo(pods[0] ?? {}, placed.get("p-0") ?? ""))], 41));
  assert.deepEqual(gang.due(at(50)).actions, [], "seen bound: done");
});

test("a lost bind whose reserved node is gone moves to a node that fits, the group kept whole", () => {
  const { gang, pods, placed } = runningWhole(2);
  const node = placed.get("p-0") ?? "";
  const nodes = ["n1", "n2", "n3"].filter((name) => name !== node).map((name) => rawNode(name, { cpu: "4" }));
  const plan = gang.apply(list([...nodes, pods[0] ?? {}, boundTo(pods[1] ?? {}, placed.get("p-1") ?? "")], 30));
  const [moved] = binds(plan.actions);
  assert.ok(moved !== undefined && moved.startsWith("p-0→") && !moved.endsWith(node), `moved off ${node}: ${moved ?? "no bind"}`);
  assert.match(eventsOf(plan.actions, "BindLost")[0]?.message ?? "", /lost its bind/);
});

test("a group all of whose binds were lost and that fits nowhere now is released and waits whole in the queue, with the Warning", () => {
  const { gang, pods } = runningWhole(2);
  // The relist: the pods unbound, and every node now full with another scheduler's pods.
  const nodes = ["n1", "n2", "n3"].map((name) => rawNode(name, { cpu: "4" }));
  const others = ["n1", "n2", "n3"].map((name) => rawPod(`web-${name}`, { scheduler: "default-scheduler", nodeName: name, cpu: "4" }));
  const plan = gang.apply(list([...nodes, ...others, ...pods], 30));
  assert.deepEqual(binds(plan.actions), []);
  assert.deepEqual(events(plan.actions).filter((e) => e.startsWith("Warning BindLost")).length, 2);
  assert.match(eventsOf(plan.actions, "FailedScheduling")[0]?.message ?? "", /its allocation is released and the group waits in the queue again$/);
  const row = gang.groups(at(30)).find((r) => r.group === "g");
  assert.notEqual(row?.state, "running", "released: no longer shown as running");
});

test("lost binds the watch shows one batch at a time are each warned about and sent again, though the first started a bind check", () => {
  const { gang, pods, placed } = runningWhole(3);
  const unbound = (i: number): ReturnType<typeof event> => event("MODIFIED", with_(pods[i] ?? {}, { status: { phase: "Pending" } }));
  const first = gang.apply(batch([unbound(0)], 30));
  assert.deepEqual([binds(first.actions), eventsOf(first.actions, "BindLost").map((w) => w.target.name)], [[`p-0→${placed.get("p-0") ?? ""}`], ["p-0"]]);
  const second = gang.apply(batch([unbound(1)], 31));
  assert.deepEqual(eventsOf(second.actions, "BindLost").map((w) => w.target.name), ["p-1"], "p-0 is not warned about twice");
  assert.ok(binds(second.actions).includes(`p-1→${placed.get("p-1") ?? ""}`), "p-1's bind sent at once, not at the next check");
  assert.deepEqual(gang.apply(batch([unbound(1)], 32)).actions, [], "the same state again: nothing new");
});
