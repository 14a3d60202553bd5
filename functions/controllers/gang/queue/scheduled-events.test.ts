import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { EventAction } from "../../../../protocol/plan.ts";
import { rawNode, rawPod } from "../core/testing/build.ts";
import { GangQueueLogic } from "./scheduler.ts";
import { at, batch, binds, event, list, scheduled, with_ } from "./testing/batches.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";

/** A group of 3 bound whole and seen bound; the relay recorded the Scheduled Event of `recorded` only (it was killed before the others). */
function boundWithEventsOf(recorded: readonly number[]): { gang: GangQueueLogic; pods: Record<string, unknown>[]; placed: Map<string, string> } {
  const gang = new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 0, bindCheckSeconds: 10 });
  const pods = [0, 1, 2].map((i) => rawPod(`p-${i}`, { group: "g", size: 3, cpu: "1" }));
  const placed = new Map(binds(gang.apply(list([rawNode("n1"), ...pods])).actions).map((text) => text.split("→") as [string, string]));
  const bound = pods.map((pod) => event("MODIFIED", with_(pod, { spec: { nodeName: "n1" }, status: { phase: "Running" } })));
  gang.apply(batch([...bound, ...recorded.map((i) => scheduled(pods[i] ?? {}))], 1));
  return { gang, pods, placed };
}

/** The Scheduled Events of a plan, by pod. */
function scheduledIn(actions: readonly { type: string }[]): string[] {
  return actions.filter((a): a is EventAction => a.type === "event" && (a as EventAction).reason === "Scheduled").map((a) => a.target.name);
}

test("a Scheduled Event the relay never recorded (killed between the binds and their Events) is recorded once the check after the binds finds it missing", () => {
  const { gang } = boundWithEventsOf([0]);
  assert.deepEqual(gang.due(at(10)).actions, [], "the bind check: all bound");
  assert.equal(gang.nextWake(), at(20), "then a check of the Scheduled Events");
  assert.deepEqual(gang.due(at(20)).actions, [], "decided on the next batch, with what the relay's watch has shown by then");
  const plan = gang.apply(batch([event("MODIFIED", rawNode("n1", { labels: { beat: "1" } }))], 21));
  assert.deepEqual(scheduledIn(plan.actions), ["p-1", "p-2"]);
  const [first] = plan.actions.filter((a): a is EventAction => a.type === "event");
  assert.equal(first?.message, "Successfully assigned default/p-1 to n1 (gang default/g, 3 pods; recorded again: the first record of this bind was lost)");
  assert.equal(first?.eventType, "Normal");
  assert.deepEqual(gang.apply(batch([event("MODIFIED", rawNode("n1", { labels: { beat: "2" } }))], 22)).actions, [], "once");
  assert.equal(gang.nextWake(), undefined);
});

test("every Scheduled Event seen: the check records nothing", () => {
  const { gang } = boundWithEventsOf([0, 1, 2]);
  gang.due(at(10));
  gang.due(at(20));
  assert.deepEqual(scheduledIn(gang.apply(batch([event("MODIFIED", rawNode("n1", { labels: { beat: "1" } }))], 21)).actions), []);
});

test("a batch of Scheduled Events alone runs no pass: the check's decision waits for it, then is made with it", () => {
  const { gang, pods } = boundWithEventsOf([]);
  gang.due(at(10));
  gang.due(at(20));
  const plan = gang.apply(batch([scheduled(pods[0] ?? {}), scheduled(pods[1] ?? {})], 21));
  assert.deepEqual(scheduledIn(plan.actions), ["p-2"], "the Events this batch brings count");
});
