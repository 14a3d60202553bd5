/**
 * Groups declared by PodGroup objects through the queue object: the size from the object,
 * a pod naming a missing one waits, scheduleTimeoutSeconds as the arrival timeout, the
 * statuses written back, and the configured scheduler name.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { Action, StatusAction } from "../../../../protocol/plan.ts";
import type { KubeObject } from "../../../../protocol/objects.ts";
import type { WatchEvent } from "../../../../protocol/reconcile.ts";
import { rawNode, rawPod } from "../core/testing/build.ts";
import { GangQueueLogic, type GangQueueOptions } from "./scheduler.ts";
import { at, batch, binds, event, events } from "./testing/batches.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";

const OPTIONS: GangQueueOptions = { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 60, bindCheckSeconds: 10 };
const SP = "scheduling.x-k8s.io/v1alpha1";
const NATIVE = "scheduling.k8s.io/v1alpha2";

function scheduler(options: Partial<GangQueueOptions> = {}): GangQueueLogic {
  return new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), { ...OPTIONS, ...options });
}

/** A watch event of a PodGroup object. */
function groupEvent(type: WatchEvent["type"], object: Record<string, unknown>, initial = false): WatchEvent {
  return { type, kind: `PodGroup.${String(object["apiVersion"])}`, object: object as KubeObject, initial };
}

/** A complete list (one batch) of pods, nodes and PodGroups. */
function list(objects: Record<string, unknown>[], seconds = 0): ReturnType<typeof batch> {
  return batch(objects.map((object) => (object["kind"] === "PodGroup" ? groupEvent("ADDED", object, true) : event("ADDED", object, true))), seconds, { relist: true });
}

function spGroup(name: string, minMember: number, extra: Record<string, unknown> = {}, status?: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: SP, kind: "PodGroup", metadata: { name, namespace: "default", uid: `uid-pg-${name}`, generation: 1 }, spec: { minMember, ...extra }, ...(status ? { status } : {}) };
}

function nativeGroup(name: string, minCount: number, status?: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: NATIVE, kind: "PodGroup", metadata: { name, namespace: "default", uid: `uid-npg-${name}`, generation: 3 }, spec: { schedulingPolicy: { gang: { minCount } } }, ...(status ? { status } : {}) };
}

/** A pod labelled for scheduler-plugins' PodGroup `group`. */
function spPod(name: string, group: string, options: Parameters<typeof rawPod>[1] = {}): Record<string, unknown> {
  const pod = rawPod(name, { cpu: "1", ...options });
  (pod["metadata"] as { labels: Record<string, string> }).labels["scheduling.x-k8s.io/pod-group"] = group;
  return pod;
}

/** A pod naming native PodGroup `group`. */
function nativePod(name: string, group: string): Record<string, unknown> {
  const pod = rawPod(name, { cpu: "1" });
  (pod["spec"] as Record<string, unknown>)["schedulingGroup"] = { podGroupName: group };
  return pod;
}

/** The PodGroup status actions of a plan. */
function podGroupStatuses(actions: readonly Action[]): StatusAction[] {
  return actions.filter((a): a is StatusAction => a.type === "status" && a.target.kind === "PodGroup");
}

test("scheduler-plugins: pods wait for their PodGroup, bind together once minMember are there, and its status follows its pods", () => {
  const gang = scheduler();
  gang.apply(list([rawNode("n1", { cpu: "8" })]));
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", spPod("a", "pg1")), event("ADDED", spPod("b", "pg1"))], 1)).actions), [], "no PodGroup yet");
  assert.deepEqual(
    gang.groups(at(1)).map((g) => [g.group, g.state, g.present, g.waitingFor]),
    [["pg1", "provisional", 2, "the PodGroup its pods name, which does not exist"]],
  );
  const created = gang.apply(batch([groupEvent("ADDED", spGroup("pg1", 3))], 2));
  assert.deepEqual(binds(created.actions), [], "2 of 3");
  const pending = podGroupStatuses(created.actions);
  assert.deepEqual(pending.map((a) => [a.target.apiVersion, a.target.name, a.target.uid, a.status["phase"]]), [[SP, "pg1", "uid-pg-pg1", "Pending"]]);
  assert.equal(podGroupStatuses(gang.apply(batch([groupEvent("MODIFIED", spGroup("pg1", 3))], 3)).actions).length, 0, "sent, not yet seen: not sent again");
  const third = gang.apply(batch([event("ADDED", spPod("c", "pg1"))], 4));
  assert.deepEqual(binds(third.actions), ["a→n1", "b→n1", "c→n1"]);
  assert.deepEqual(podGroupStatuses(third.actions).map((a) => a.status["phase"]), ["Scheduling"]);
  const running = gang.apply(
    batch(
      ["a", "b", "c"].map((name) => event("MODIFIED", spPod(name, "pg1", { nodeName: "n1", phase: "Running" }))),
      5,
    ),
  );
  assert.deepEqual(podGroupStatuses(running.actions).map((a) => [a.status["phase"], a.status["running"]]), [["Running", 3]]);
  assert.deepEqual(gang.groups(at(5)).map((g) => [g.group, g.state, g.size]), [["pg1", "running", 3]]);
  const done = gang.apply(batch(["a", "b", "c"].map((name) => event("MODIFIED", spPod(name, "pg1", { nodeName: "n1", phase: "Succeeded" }))), 6));
  assert.deepEqual(podGroupStatuses(done.actions).map((a) => [a.status["phase"], a.status["succeeded"], a.status["running"]]), [["Finished", 3, 0]]);
  assert.deepEqual(podGroupStatuses(gang.apply(batch([groupEvent("MODIFIED", spGroup("pg1", 3, {}, { phase: "Finished", succeeded: 3 }))], 7)).actions), [], "final");
});

test("scheduler-plugins: a PodGroup none of our pods names is left to its own controller", () => {
  const gang = scheduler();
  gang.apply(list([rawNode("n1", { cpu: "8" })]));
  assert.deepEqual(podGroupStatuses(gang.apply(batch([groupEvent("ADDED", spGroup("theirs", 2))], 1)).actions), [], "no pod of ours names it");
  const theirs = spPod("t-0", "theirs", { scheduler: "scheduler-plugins-scheduler" });
  assert.deepEqual(podGroupStatuses(gang.apply(batch([event("ADDED", theirs)], 2)).actions), [], "another scheduler's pod");
  assert.deepEqual(podGroupStatuses(gang.apply(batch([event("ADDED", spPod("o-0", "theirs"))], 3)).actions).map((a) => a.status["phase"]), ["Pending"], "ours from the first pod of ours");
});

test("scheduler-plugins: scheduleTimeoutSeconds is the group's arrival timeout", () => {
  const gang = scheduler({ arrivalTimeoutSeconds: 600 });
  gang.apply(list([rawNode("n1", { cpu: "8" }), spGroup("pg1", 3, { scheduleTimeoutSeconds: 10 })]));
  gang.apply(batch([event("ADDED", spPod("a", "pg1"))], 1));
  assert.equal(gang.nextWake(), at(11));
  assert.deepEqual(events(gang.due(at(11)).actions), ["Warning GangIncomplete a"]);
});

test("a group whose PodGroup never comes is warned about at the arrival timeout, naming what it waits for", () => {
  const gang = scheduler({ arrivalTimeoutSeconds: 30 });
  gang.apply(list([rawNode("n1", { cpu: "8" })]));
  gang.apply(batch([event("ADDED", nativePod("w-0", "missing"))], 1));
  const warned = gang.due(at(31)).actions.filter((a) => a.type === "event");
  assert.deepEqual(events(warned), ["Warning GangIncomplete w-0"]);
  assert.equal(warned[0]?.type === "event" && warned[0].message, "1 pods of group default/missing waited 30s for the PodGroup they name, which does not exist");
});

test("native: a PodGroup's gang.minCount sizes the group; PodGroupScheduled is written once it is placed", () => {
  const gang = scheduler();
  gang.apply(list([rawNode("n1", { cpu: "8" }), nativeGroup("train", 2)]));
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", nativePod("w-0", "train"))], 1)).actions), []);
  const plan = gang.apply(batch([event("ADDED", nativePod("w-1", "train"))], 2));
  assert.deepEqual(binds(plan.actions), ["w-0→n1", "w-1→n1"]);
  const [status] = podGroupStatuses(plan.actions);
  assert.equal(status?.target.apiVersion, NATIVE);
  assert.deepEqual(status?.status, { conditions: [{ type: "PodGroupScheduled", status: "True", observedGeneration: 3, lastTransitionTime: new Date(at(2)).toISOString(), reason: "Scheduled", message: "" }] });
  assert.deepEqual(podGroupStatuses(gang.apply(batch([groupEvent("MODIFIED", nativeGroup("train", 2, status?.status))], 3)).actions), [], "seen: nothing more");
});

test("native: a group that can never fit gets PodGroupScheduled False, Unschedulable", () => {
  const gang = scheduler();
  const big = (name: string): Record<string, unknown> => {
    const pod = nativePod(name, "huge");
    ((pod["spec"] as { containers: { resources: { requests: Record<string, string> } }[] }).containers[0] as { resources: { requests: Record<string, string> } }).resources.requests["cpu"] = "64";
    return pod;
  };
  const plan = gang.apply(list([rawNode("n1", { cpu: "8" }), nativeGroup("huge", 2), big("h-0"), big("h-1")]));
  const [status] = podGroupStatuses(plan.actions);
  const condition = (status?.status["conditions"] as Record<string, unknown>[])[0];
  assert.equal(condition?.["status"], "False");
  assert.equal(condition?.["reason"], "Unschedulable");
  assert.match(String(condition?.["message"]), /can never fit/);
});

test("the scheduler name is a setting: pods naming another scheduler are not placed", () => {
  const gang = scheduler({ schedulerName: "gangs", arrivalWindowSeconds: 30 });
  gang.apply(list([rawNode("n1", { cpu: "8" })]));
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", rawPod("flux", { group: "g", size: 1, cpu: "1" }))], 1)).actions), [], "fluxnetes is not ours here");
  assert.deepEqual(binds(gang.apply(batch([event("ADDED", rawPod("ours", { group: "h", size: 1, cpu: "1", scheduler: "gangs" }))], 2)).actions), ["ours→n1"]);
  const job = (scheduler: string): Record<string, unknown> => ({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `job-${scheduler}`, namespace: "default", uid: `uid-job-${scheduler}`, creationTimestamp: new Date(at(3)).toISOString() },
    spec: { template: { metadata: { labels: { "fluxnetes.group-name": `j-${scheduler}`, "fluxnetes.group-size": "2" } }, spec: { schedulerName: scheduler, containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "1" } } }] } } },
  });
  const jobEvent = (object: Record<string, unknown>): WatchEvent => ({ type: "ADDED", kind: "Job.batch/v1", object: object as KubeObject, initial: false });
  gang.apply(batch([jobEvent(job("fluxnetes")), jobEvent(job("gangs"))], 3));
  assert.deepEqual(gang.groups(at(3)).filter((g) => g.state === "provisional").map((g) => g.group), ["j-gangs"], "only a Job whose pods name the configured scheduler announces its group");
});

test("a relist forgets the PodGroups it did not list: their pods wait again", () => {
  const gang = scheduler();
  gang.apply(list([rawNode("n1", { cpu: "1" }), nativeGroup("train", 2)]));
  gang.apply(list([rawNode("n1", { cpu: "1" })], 1));
  gang.apply(batch([event("ADDED", nativePod("w-0", "train")), event("ADDED", nativePod("w-1", "train"))], 2));
  assert.deepEqual(gang.groups(at(2)).map((g) => [g.group, g.state, g.size]), [["train", "provisional", 0]]);
});

test("a PodGroup made before its pods gives its group its place in the queue: its pods arriving late, it holds that place (ADR 0025)", () => {
  const gang = scheduler({ arrivalWindowSeconds: 30 });
  gang.apply(list([rawNode("n1", { cpu: "4" })], 0));
  // first is created before second, but a pod of second is the first to arrive.
  gang.apply(batch([groupEvent("ADDED", spGroup("zz-first", 2)), groupEvent("ADDED", spGroup("aa-second", 2))], 1));
  gang.apply(batch([event("ADDED", spPod("second-0", "aa-second", { cpu: "2" }))], 2));
  gang.apply(batch([event("ADDED", spPod("first-0", "zz-first", { cpu: "2" }))], 3));
  const early = gang.apply(batch([event("ADDED", spPod("second-1", "aa-second", { cpu: "2" }))], 4));
  assert.deepEqual(binds(early.actions), [], "second, complete, waits: first, still arriving, holds the node");
  const late = gang.apply(batch([event("ADDED", spPod("first-1", "zz-first", { cpu: "1" }))], 5));
  assert.deepEqual(binds(late.actions), ["first-0→n1", "first-1→n1"]);
});

test("a PodGroup whose count is above 10000 is refused, not clamped: its pods FailedScheduling naming the field, a Warning on the PodGroup, a native one PodGroupScheduled False", () => {
  const gang = scheduler();
  const plan = gang.apply(list([rawNode("n1"), spGroup("huge", 1_000_000), spPod("h-0", "huge"), nativeGroup("vast", 20_000), nativePod("v-0", "vast")]));
  assert.deepEqual(binds(plan.actions), []);
  assert.deepEqual(events(plan.actions).sort(), ["Warning FailedScheduling h-0", "Warning FailedScheduling huge", "Warning FailedScheduling v-0", "Warning FailedScheduling vast"]);
  const messages = plan.actions.flatMap((a) => (a.type === "event" ? [a.message] : [])).sort();
  assert.deepEqual(messages, [
    "PodGroup default/huge refused: spec.minMember is 1000000: a group size is a whole number from 1 to 10000; its pods are not scheduled",
    "PodGroup default/vast refused: spec.schedulingPolicy.gang.minCount is 20000: a group size is a whole number from 1 to 10000; its pods are not scheduled",
    "pod default/h-0 refused: PodGroup default/huge: spec.minMember is 1000000: a group size is a whole number from 1 to 10000",
    "pod default/v-0 refused: PodGroup default/vast: spec.schedulingPolicy.gang.minCount is 20000: a group size is a whole number from 1 to 10000",
  ]);
  const [native] = podGroupStatuses(plan.actions).filter((s) => s.target.name === "vast");
  const condition = (native?.status["conditions"] as { type: string; status: string; message: string }[] | undefined)?.[0];
  assert.deepEqual([condition?.type, condition?.status, condition?.message], ["PodGroupScheduled", "False", "refused: spec.schedulingPolicy.gang.minCount is 20000: a group size is a whole number from 1 to 10000"]);
  assert.deepEqual(events(gang.apply(batch([event("MODIFIED", rawNode("n1", { labels: { beat: "1" } }))], 1)).actions), [], "once");
  // Fixed (the spec changed), the group is scheduled at its size.
  assert.deepEqual(binds(gang.apply(batch([groupEvent("MODIFIED", spGroup("huge", 1))], 2)).actions), ["h-0→n1"]);
});
