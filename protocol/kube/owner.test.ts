import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject, ObjectRef, OwnerReference } from "../objects.ts";
import { controllerOf, controllerOfType, controllerRef, isControlledBy, isControlledByUid, ownerToFollow, rootOwner } from "./owner.ts";

const job: KubeObject = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "train", namespace: "ns", uid: "job-1" } };

function child(...refs: OwnerReference[]): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", uid: "pod-1", ownerReferences: refs } };
}

test("a controller reference names its owner and blocks its deletion", () => {
  assert.deepEqual(controllerRef(job), { apiVersion: "batch/v1", kind: "Job", name: "train", uid: "job-1", controller: true, blockOwnerDeletion: true });
  assert.deepEqual(controllerRef(job, { apiVersion: "batch/v2", kind: "Job" }).apiVersion, "batch/v2", "at the version the controller writes");
  const pod = child({ apiVersion: "v1", kind: "Node", name: "n", uid: "node-1" }, controllerRef(job));
  assert.equal(controllerOf(pod)?.uid, "job-1");
  assert.equal(controllerOf(child({ apiVersion: "v1", kind: "Node", name: "n", uid: "node-1" })), undefined, "a plain owner is no controller");
  assert.equal(controllerOfType(pod, { apiVersion: "batch/v2", kind: "Job" })?.name, "train", "of the owner's kind and group, any version");
  assert.equal(controllerOfType(pod, { apiVersion: "other.io/v1", kind: "Job" }), undefined);
  assert.equal(controllerOfType(pod, { apiVersion: "v1", kind: "Node" }), undefined, "a plain owner of the kind is not the controller");
});

test("controlled by: the controller reference's uid, kind and group (any version)", () => {
  const cases: [OwnerReference, KubeObject, boolean][] = [
    [controllerRef(job), job, true],
    [{ ...controllerRef(job), apiVersion: "batch/v2" }, job, true],
    [{ ...controllerRef(job), apiVersion: "other.io/v1" }, job, false],
    [{ ...controllerRef(job), kind: "CronJob" }, job, false],
    [{ ...controllerRef(job), uid: "job-0" }, job, false],
    [{ ...controllerRef(job), controller: false }, job, false],
    [controllerRef(job), { ...job, metadata: { name: "train" } }, false],
  ];
  for (const [ref, owner, want] of cases) assert.equal(isControlledBy(child(ref), owner), want, JSON.stringify([ref, owner.metadata]));
  assert.equal(isControlledByUid(child(controllerRef(job)), "job-1"), true);
  assert.equal(isControlledByUid(child({ ...controllerRef(job), controller: false }), "job-1"), false);
  assert.equal(isControlledByUid(child(), ""), false);
});

test("the owner a walk follows: the controller, else the first", () => {
  const node: OwnerReference = { apiVersion: "v1", kind: "Node", name: "n", uid: "node-1" };
  assert.equal(ownerToFollow(child(node, controllerRef(job)))?.uid, "job-1");
  assert.equal(ownerToFollow(child(node))?.uid, "node-1");
  assert.equal(ownerToFollow(child()), undefined);
});

test("the root owner: the highest that exists, within the depth, the same incarnation", async () => {
  const cron: KubeObject = { apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "nightly", namespace: "ns", uid: "cron-1" } };
  const ownedJob: KubeObject = { ...job, metadata: { ...job.metadata, ownerReferences: [controllerRef(cron)] } };
  const pod = child(controllerRef(job));
  const objects = new Map<string, KubeObject>([pod, ownedJob, cron].map((o) => [`${o.kind}/${o.metadata.name ?? ""}`, o]));
  const read = (found: Map<string, KubeObject>) => (ref: ObjectRef) => Promise.resolve(found.get(`${ref.kind}/${ref.name}`));
  const target: ObjectRef = { apiVersion: "v1", kind: "Pod", namespace: "ns", name: "p", uid: "pod-1" };
  assert.deepEqual(await rootOwner(target, read(objects), 8), { apiVersion: "batch/v1", kind: "CronJob", namespace: "ns", name: "nightly", uid: "cron-1" });
  assert.deepEqual((await rootOwner(target, read(objects), 1)).kind, "Job", "at most maxDepth levels up");
  const replaced = new Map(objects).set("CronJob/nightly", { ...cron, metadata: { ...cron.metadata, uid: "cron-2" } });
  assert.deepEqual((await rootOwner(target, read(replaced), 8)).kind, "Job", "another incarnation under the owner's name ends the walk");
  assert.deepEqual(await rootOwner(target, read(new Map()), 8), target, "a target already gone is its own root");
});
