import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { SlotTracker, slotOf } from "./slots.ts";

/** A training pod of job `job` on `node`, as either controller labels it. */
function pod(uid: string, phase: string, job = "fl", node = "edge1", extra: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `${job}-${uid}`, namespace: "ns", uid, labels: { "federatedlearningjob.sedna.io/name": job, "federatedlearningjob.sedna.io/worker-type": "train", ...extra } },
    spec: { nodeName: node },
    status: { phase },
  } as KubeObject;
}

describe("slotOf", () => {
  it("names a worker by namespace, kind, object, worker type and node, whatever the pod is called", () => {
    assert.equal(slotOf(pod("a", "Running")), "ns/federatedlearningjob/fl/train/edge1");
    const ji = { apiVersion: "v1", kind: "Pod", metadata: { name: "x", namespace: "ns", labels: { "jointinferenceservice.sedna.io/name": "ji", "jointinferenceservice.sedna.io/worker-type": "edge" } }, spec: { nodeName: "edge2" } } as KubeObject;
    assert.equal(slotOf(ji), "ns/jointinferenceservice/ji/edge/edge2");
    assert.equal(slotOf({ apiVersion: "v1", kind: "Pod", metadata: { name: "other", labels: { app: "x" } } } as KubeObject), undefined);
  });
});

/** A tracker that saw pod `a` (in `phase`) and its deletion at 10 ms, then `events` (type, pod, at). */
function afterDeletion(phase: string, events: readonly [type: "ADDED" | "MODIFIED", pod: KubeObject, at: number][]): SlotTracker {
  const t = new SlotTracker();
  t.observe("ADDED", pod("a", phase), 0);
  t.deleted("a", 10);
  for (const [type, object, at] of events) t.observe(type, object, at);
  return t;
}

describe("SlotTracker", () => {
  it("times a heal from the deletion to the replacement's creation and to its Running", () => {
    const t = new SlotTracker();
    t.observe("ADDED", pod("a", "Running"), 0);
    assert.equal(t.deleted("a", 100), "ns/federatedlearningjob/fl/train/edge1");
    t.observe("DELETED", pod("a", "Running"), 101);
    t.observe("ADDED", pod("b", "Pending"), 130);
    assert.equal(t.isWaiting("ns/federatedlearningjob/fl/train/edge1"), true);
    t.observe("MODIFIED", pod("b", "Running"), 180);
    const counts = t.counts();
    assert.deepEqual(counts.heals, [{ slot: "ns/federatedlearningjob/fl/train/edge1", createdMs: 30, runningMs: 80 }]);
    assert.equal(counts.duplicates, 0);
    assert.equal(counts.replacements, 1);
    assert.equal(counts.waiting, 0);
  });

  it("counts a second pod created for one deletion as a duplicate", () => {
    const t = afterDeletion("Running", [
      ["ADDED", pod("b", "Running"), 20],
      ["ADDED", pod("c", "Running"), 25],
    ]);
    const counts = t.counts();
    assert.equal(counts.replacements, 2);
    assert.equal(counts.duplicates, 1);
    assert.equal(t.livePods("ns/federatedlearningjob/fl/train/edge1"), 2);
  });

  it("takes a late status update of the deleted pod for no new pod", () => {
    const t = afterDeletion("Pending", [
      ["MODIFIED", pod("a", "Running"), 11],
      ["ADDED", pod("b", "Running"), 40],
    ]);
    const counts = t.counts();
    assert.equal(counts.replacements, 1);
    assert.equal(counts.heals[0]?.runningMs, 30);
  });

  it("refuses a second deletion in a slot still waiting, and forgets a failed one", () => {
    const t = new SlotTracker();
    t.observe("ADDED", pod("a", "Running"), 0);
    t.observe("ADDED", pod("x", "Running", "fl", "edge2"), 0);
    const slot = t.deleted("a", 5) ?? "";
    assert.equal(t.deleted("a", 6), undefined);
    assert.deepEqual(t.deletable().map(([uid]) => uid), ["x"]);
    t.undo(slot);
    assert.equal(t.isWaiting(slot), false);
    assert.equal(t.counts().deletions, 0);
    assert.deepEqual(t.deletable().map(([uid]) => uid).sort(), ["a", "x"]);
  });
});
