import assert from "node:assert/strict";
import { test } from "node:test";
import { coschedulingStatus, nativeConditions, readCoschedulingStatus, type CoschedulingStatus } from "./podgroup-status.ts";
import { pod } from "./testing/build.ts";

const EMPTY = readCoschedulingStatus(undefined);
/** `n` pods in `phase`. */
const pods = (n: number, phase: string): ReturnType<typeof pod>[] => Array.from({ length: n }, (_, i) => pod(`${phase}-${i}`, { phase, ...(phase === "Pending" ? {} : { nodeName: "n1" }) }));
const status = (phase: CoschedulingStatus["phase"], counts: Partial<CoschedulingStatus> = {}): CoschedulingStatus => ({ ...EMPTY, phase, ...counts });

test("scheduler-plugins PodGroup status: the podgroup controller's steps, taken to where they settle", () => {
  assert.deepEqual(coschedulingStatus(EMPTY, 3, [], ""), status("Pending"), "a new group with no pod");
  assert.deepEqual(coschedulingStatus(EMPTY, 3, pods(2, "Pending"), "default/job"), status("Pending"), "short of minMember");
  assert.deepEqual(coschedulingStatus(EMPTY, 3, pods(3, "Pending"), "default/job"), status("Scheduling", { occupiedBy: "default/job" }), "minMember pods exist");
  assert.deepEqual(coschedulingStatus(status("Scheduling"), 3, pods(3, "Running"), ""), status("Running", { running: 3 }));
  assert.deepEqual(coschedulingStatus(status("Running"), 3, [...pods(2, "Succeeded"), ...pods(1, "Running")], ""), status("Running", { running: 1, succeeded: 2 }));
  assert.deepEqual(coschedulingStatus(status("Running"), 3, pods(3, "Succeeded"), ""), status("Finished", { succeeded: 3 }));
  assert.deepEqual(coschedulingStatus(status("Running"), 3, [...pods(2, "Running"), ...pods(1, "Failed")], ""), status("Failed", { running: 2, failed: 1 }));
  assert.deepEqual(coschedulingStatus(status("Running"), 3, pods(1, "Running"), ""), status("Pending", { running: 1 }), "pods gone below minMember");
  assert.deepEqual(coschedulingStatus(status("Finished", { succeeded: 3 }), 3, [], ""), status("Finished", { succeeded: 3 }), "final");
  assert.deepEqual(coschedulingStatus(EMPTY, 2, pods(2, "Succeeded"), ""), status("Finished", { succeeded: 2 }), "all steps at once for a group that finished unseen");
});

test("native PodGroup: PodGroupScheduled as kube-scheduler writes it, never back from True, other conditions kept", () => {
  const now = "2026-01-01T00:00:10Z";
  const other = { type: "DisruptionTarget", status: "False", reason: "x", message: "", lastTransitionTime: now };
  const failed = nativeConditions({ conditions: [other] }, { scheduled: false, message: "needs 8 cpu" }, 2, now);
  assert.deepEqual(failed, [other, { type: "PodGroupScheduled", status: "False", observedGeneration: 2, lastTransitionTime: now, reason: "Unschedulable", message: "needs 8 cpu" }]);
  assert.equal(nativeConditions({ conditions: failed }, { scheduled: false, message: "needs 8 cpu" }, 2, "later"), undefined, "unchanged");
  const scheduled = nativeConditions({ conditions: failed }, { scheduled: true }, 2, "2026-01-01T00:01:00Z");
  assert.deepEqual(scheduled?.[1], { type: "PodGroupScheduled", status: "True", observedGeneration: 2, lastTransitionTime: "2026-01-01T00:01:00Z", reason: "Scheduled", message: "" });
  assert.equal(nativeConditions({ conditions: scheduled }, { scheduled: false, message: "x" }, 2, now), undefined, "True is not regressed");
});
