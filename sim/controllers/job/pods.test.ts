import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { INDEX_ANNOTATION } from "./indexes.ts";
import { activePodsForRemoval, INDEX_ENV, isActive, isPodFailed, isTerminating, jobSpec, podForJob, TRACKING_FINALIZER, wantActive } from "./pods.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

function pod(name: string, fields: { phase?: string; node?: string; ready?: boolean; created?: string; index?: number; deleting?: boolean } = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      creationTimestamp: fields.created ?? "2026-01-01T00:00:00Z",
      ...(fields.index === undefined ? {} : { annotations: { [INDEX_ANNOTATION]: String(fields.index) } }),
      ...(fields.deleting ? { deletionTimestamp: "2026-01-01T00:01:00Z" } : {}),
    },
    spec: { ...(fields.node ? { nodeName: fields.node } : {}) },
    status: { phase: fields.phase ?? "Running", conditions: [{ type: "Ready", status: fields.ready ? "True" : "False" }] },
  } as KubeObject;
}

const JOB = {
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "work", namespace: "ns", uid: "u-1" },
  spec: { completions: 3, parallelism: 2, template: { metadata: { labels: { app: "w" } }, spec: { restartPolicy: "Never", containers: [{ name: "a", image: "busybox" }], initContainers: [{ name: "i", image: "busybox", env: [{ name: INDEX_ENV, value: "mine" }] }] } } },
} as KubeObject;

test("how many pods should run: the completions left, at most parallelism; a work queue runs parallelism until one succeeds", () => {
  assert.equal(wantActive({ completions: 5, parallelism: 2 }, 0, 0), 2);
  assert.equal(wantActive({ completions: 5, parallelism: 2 }, 4, 2), 1);
  assert.equal(wantActive({ completions: 5, parallelism: 2 }, 6, 0), 0);
  assert.equal(wantActive({ completions: undefined, parallelism: 3 }, 0, 1), 3);
  assert.equal(wantActive({ completions: undefined, parallelism: 3 }, 1, 2), 2, "after a success, what runs keeps running, nothing new");
});

test("active, terminating and failed pods as upstream counts them", () => {
  assert.equal(isActive(pod("a")), true);
  assert.equal(isActive(pod("a", { phase: "Succeeded" })), false);
  assert.equal(isActive(pod("a", { deleting: true })), false);
  assert.equal(isTerminating(pod("a", { deleting: true })), true);
  assert.equal(isTerminating(pod("a", { deleting: true, phase: "Failed" })), false);
  assert.equal(isPodFailed(pod("a", { phase: "Failed" }), { onlyReplaceFailed: false }), true);
  assert.equal(isPodFailed(pod("a", { deleting: true }), { onlyReplaceFailed: false }), true, "deleted before succeeding counts as failed");
  assert.equal(isPodFailed(pod("a", { deleting: true }), { onlyReplaceFailed: true }), false, "podReplacementPolicy Failed waits for the Failed phase");
  assert.equal(isPodFailed(pod("a", { deleting: true, phase: "Succeeded" }), { onlyReplaceFailed: false }), false);
});

test("excess pods are deleted least advanced first: unscheduled, not ready, newest", () => {
  const pods = [pod("ready-old", { node: "n", ready: true, created: "2026-01-01T00:00:00Z" }), pod("unscheduled", { phase: "Pending" }), pod("running-new", { node: "n", created: "2026-01-01T00:05:00Z" }), pod("running-old", { node: "n" })];
  const spec = { indexed: false, completions: 3 };
  assert.deepEqual(activePodsForRemoval(spec, pods, 3).map((p) => p.metadata.name), ["unscheduled", "running-new", "running-old"]);
  assert.deepEqual(activePodsForRemoval(spec, pods, 0), []);
});

test("Indexed: pods without a valid index and repeated indexes go, keeping the one furthest along", () => {
  const pods = [pod("i0-ready", { node: "n", ready: true, index: 0 }), pod("i0-pending", { phase: "Pending", index: 0 }), pod("i5", { index: 5 }), pod("none", {}), pod("i1", { index: 1 })];
  const names = activePodsForRemoval({ indexed: true, completions: 3 }, pods, 0).map((p) => p.metadata.name).sort();
  assert.deepEqual(names, ["i0-pending", "i5", "none"]);
});

test("a Job's pod: template labels and spec, the tracking finalizer, a controller ownerReference blocking owner deletion", () => {
  const p = podForJob(JOB) as Obj;
  assert.equal(p.metadata.generateName, "work-");
  assert.equal(p.metadata.namespace, "ns");
  assert.deepEqual(p.metadata.labels, { app: "w" });
  assert.deepEqual(p.metadata.finalizers, [TRACKING_FINALIZER]);
  assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: "batch/v1", kind: "Job", name: "work", uid: "u-1", controller: true, blockOwnerDeletion: true }]);
  assert.equal(p.spec.hostname, undefined);
});

test("an Indexed Job's pod: named <job>-<index>-, index annotation and label, hostname, JOB_COMPLETION_INDEX unless set", () => {
  const p = podForJob(JOB, 2) as Obj;
  assert.equal(p.metadata.generateName, "work-2-");
  assert.equal(p.metadata.annotations[INDEX_ANNOTATION], "2");
  assert.equal(p.metadata.labels[INDEX_ANNOTATION], "2");
  assert.equal(p.spec.hostname, "work-2");
  assert.deepEqual(p.spec.containers[0].env, [{ name: INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${INDEX_ANNOTATION}']` } } }]);
  assert.deepEqual(p.spec.initContainers[0].env, [{ name: INDEX_ENV, value: "mine" }]);
  const long = podForJob({ ...JOB, metadata: { ...JOB.metadata, name: "x".repeat(60) } }, 12) as Obj;
  assert.equal(long.metadata.generateName, `${"x".repeat(54)}-12-`);
});

test("the spec as the controller reads it", () => {
  const spec = jobSpec(JOB);
  assert.deepEqual({ completions: spec.completions, parallelism: spec.parallelism, backoffLimit: spec.backoffLimit, indexed: spec.indexed, restartPolicy: spec.restartPolicy }, { completions: 3, parallelism: 2, backoffLimit: 6, indexed: false, restartPolicy: "Never" });
});
