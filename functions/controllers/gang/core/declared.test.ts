import assert from "node:assert/strict";
import { test } from "node:test";
import { declaredSizes, groupSize, parseDeclaredGroup } from "./declared.ts";
import { groupOf } from "./group.ts";
import { gatherGroups } from "./queue.ts";
import { parsePod } from "./records.ts";
import { rawPod } from "./testing/build.ts";

/** A pending pod of ours naming group `name` one of three ways. */
function declaredPod(pod: string, how: "native" | "scheduler-plugins" | "labels", name: string, size = 1): ReturnType<typeof parsePod> {
  const raw = rawPod(pod, how === "labels" ? { group: name, size, cpu: "1" } : { cpu: "1" });
  if (how === "native") (raw["spec"] as Record<string, unknown>)["schedulingGroup"] = { podGroupName: name };
  if (how === "scheduler-plugins") (raw["metadata"] as { labels: Record<string, string> }).labels["scheduling.x-k8s.io/pod-group"] = name;
  return parsePod(raw);
}

const SP_GROUP = { apiVersion: "scheduling.x-k8s.io/v1alpha1", kind: "PodGroup", metadata: { name: "pg1", namespace: "default" }, spec: { minMember: 3, scheduleTimeoutSeconds: 10 } };
const NATIVE_GROUP = { apiVersion: "scheduling.k8s.io/v1alpha2", kind: "PodGroup", metadata: { name: "train", namespace: "default" }, spec: { schedulingPolicy: { gang: { minCount: 2 } } } };

test("a pod's group: spec.schedulingGroup first, then the scheduler-plugins label, then the Fluxnetes labels", () => {
  const labels = { "fluxnetes.group-name": "flux", "fluxnetes.group-size": "4", "scheduling.x-k8s.io/pod-group": "pg1" };
  const both = { metadata: { name: "p", namespace: "ns", labels }, spec: { schedulingGroup: { podGroupName: "train" } } };
  assert.deepEqual(groupOf(both), { namespace: "ns", name: "train", key: "ns/train", size: 1, declaredBy: "native" });
  assert.deepEqual(groupOf({ ...both, spec: {} }), { namespace: "ns", name: "pg1", key: "ns/pg1", size: 1, declaredBy: "scheduler-plugins" });
  const flux = groupOf({ metadata: { name: "p", namespace: "ns", labels: { "fluxnetes.group-name": "flux", "fluxnetes.group-size": "4" } } });
  assert.deepEqual(flux, { namespace: "ns", name: "flux", key: "ns/flux", size: 4 });
  assert.equal(groupOf({ metadata: { name: "p", labels: { "scheduling.x-k8s.io/pod-group": "" } }, spec: { schedulingGroup: { podGroupName: "" } } }).declaredBy, undefined, "empty names declare nothing");
});

test("the PodGroup objects: minMember and scheduleTimeoutSeconds, gang.minCount, basic as a group of one, counts above 10000 or not whole refused, naming the field", () => {
  assert.deepEqual(parseDeclaredGroup("scheduler-plugins", SP_GROUP), { api: "scheduler-plugins", namespace: "default", name: "pg1", key: "default/pg1", size: 3, scheduleTimeoutSeconds: 10 });
  assert.equal(parseDeclaredGroup("native", NATIVE_GROUP)?.size, 2);
  assert.equal(parseDeclaredGroup("native", { metadata: { name: "b" }, spec: { schedulingPolicy: { basic: {} } } })?.size, 1);
  assert.equal(parseDeclaredGroup("scheduler-plugins", { metadata: { name: "z" }, spec: { minMember: -4 } })?.size, 1);
  assert.deepEqual(parseDeclaredGroup("scheduler-plugins", { metadata: { name: "z" }, spec: { minMember: 1e6, scheduleTimeoutSeconds: 0 } })?.sizeRefused, "spec.minMember is 1000000: a group size is a whole number from 1 to 10000");
  assert.deepEqual(parseDeclaredGroup("native", { metadata: { name: "z" }, spec: { schedulingPolicy: { gang: { minCount: 2.5 } } } })?.sizeRefused, "spec.schedulingPolicy.gang.minCount is 2.5: a group size is a whole number from 1 to 10000");
  assert.equal(parseDeclaredGroup("scheduler-plugins", { metadata: { name: "z" }, spec: { minMember: 10_000 } })?.sizeRefused, undefined);
  assert.equal(parseDeclaredGroup("scheduler-plugins", { metadata: { name: "z" }, spec: { scheduleTimeoutSeconds: 0 } })?.scheduleTimeoutSeconds, undefined);
  assert.equal(parseDeclaredGroup("native", { metadata: {} }), undefined, "no name");
});

test("a group's size comes from its PodGroup of the same API; unknown, it is undefined", () => {
  const sizes = declaredSizes([parseDeclaredGroup("scheduler-plugins", SP_GROUP), parseDeclaredGroup("native", NATIVE_GROUP)].filter((g) => g !== undefined));
  assert.equal(groupSize([declaredPod("a", "scheduler-plugins", "pg1")], sizes), 3);
  assert.equal(groupSize([declaredPod("a", "native", "train")], sizes), 2);
  assert.equal(groupSize([declaredPod("a", "native", "pg1")], sizes), undefined, "a native pod does not take a scheduler-plugins PodGroup's size");
  assert.equal(groupSize([declaredPod("a", "labels", "x", 5)], sizes), 5);
  assert.equal(groupSize([declaredPod("a", "scheduler-plugins", "pg1")], undefined), undefined);
});

test("gathering: a pod naming a missing PodGroup waits; the object, once known, makes the group complete at its size", () => {
  const pods = [declaredPod("a", "scheduler-plugins", "pg1"), declaredPod("b", "scheduler-plugins", "pg1"), declaredPod("c", "scheduler-plugins", "pg1")];
  const missing = gatherGroups(pods);
  assert.deepEqual(missing.complete, []);
  assert.deepEqual(
    missing.provisional.map((g) => [g.key, g.have, g.size, g.undeclared]),
    [["default/pg1", 3, 0, true]],
  );
  const sizes = declaredSizes([parseDeclaredGroup("scheduler-plugins", SP_GROUP)].filter((g) => g !== undefined));
  assert.deepEqual(gatherGroups(pods.slice(0, 2), { sizes }).provisional.map((g) => [g.have, g.size]), [[2, 3]]);
  const complete = gatherGroups(pods, { sizes }).complete;
  assert.deepEqual(complete.map((g) => [g.key, g.size, g.pods.length]), [["default/pg1", 3, 3]]);
});
