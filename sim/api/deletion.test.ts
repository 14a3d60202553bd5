import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { deletion, removedByUpdate } from "./deletion.ts";
import { CONFIG_MAP } from "./kinds/config.ts";
import { JOB } from "./kinds/jobs.ts";
import { NAMESPACE } from "./kinds/namespaces.ts";
import { POD } from "./kinds/pods.ts";

const now = (): Date => new Date("2026-01-01T00:00:00Z");

function pod(spec: Record<string, unknown>, metadata: Partial<KubeObject["metadata"]> = {}): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", generation: 1, ...metadata }, spec } as KubeObject;
}

test("a pod on no node goes at once; a bound one is marked for its kubelet, with its grace period", () => {
  assert.equal(deletion(POD, pod({}), {}, now).type, "DELETED");
  const marked = deletion(POD, pod({ nodeName: "n", terminationGracePeriodSeconds: 10 }), {}, now);
  assert.equal(marked.type, "MODIFIED");
  assert.deepEqual(marked.object.metadata, { name: "p", generation: 2, deletionTimestamp: "2026-01-01T00:00:10Z", deletionGracePeriodSeconds: 10 });
  assert.equal(deletion(POD, pod({ nodeName: "n" }), { gracePeriodSeconds: 5 }, now).object.metadata.deletionGracePeriodSeconds, 5);
});

test("a bound pod deleted with grace 0 goes in the write that marks it", () => {
  const forced = deletion(POD, pod({ nodeName: "n" }), { gracePeriodSeconds: 0 }, now);
  assert.equal(forced.type, "DELETED");
  assert.deepEqual(forced.object.metadata, { name: "p", generation: 2, deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 0 });
});

test("a terminating pod: a shorter grace period cuts it short, anything else changes nothing", () => {
  const terminating = pod({ nodeName: "n" }, { deletionTimestamp: "2026-01-01T00:00:30Z", deletionGracePeriodSeconds: 30 });
  assert.equal(deletion(POD, terminating, {}, now).type, "NONE");
  assert.equal(deletion(POD, terminating, { gracePeriodSeconds: 60 }, now).type, "NONE");
  assert.deepEqual([deletion(POD, terminating, { gracePeriodSeconds: 5 }, now).type, deletion(POD, terminating, { gracePeriodSeconds: 5 }, now).object.metadata.deletionGracePeriodSeconds], ["MODIFIED", 5]);
  assert.equal(deletion(POD, terminating, { gracePeriodSeconds: 0 }, now).type, "DELETED");
  const held = pod({ nodeName: "n" }, { deletionTimestamp: "2026-01-01T00:00:30Z", deletionGracePeriodSeconds: 30, finalizers: ["x.io/f"] });
  assert.equal(deletion(POD, held, { gracePeriodSeconds: 0 }, now).type, "MODIFIED", "a finalizer still holds it");
});

test("propagation: a Job orphans its pods unless told otherwise; Foreground waits for dependents", () => {
  const job = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j", generation: 1 } } as KubeObject;
  assert.deepEqual(deletion(JOB, job, {}, now).object.metadata.finalizers, ["orphan"]);
  assert.equal(deletion(JOB, job, { propagationPolicy: "Background" }, now).type, "DELETED");
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } } as KubeObject;
  assert.equal(deletion(CONFIG_MAP, cm, {}, now).type, "DELETED");
  assert.deepEqual(deletion(CONFIG_MAP, cm, { propagationPolicy: "Foreground" }, now).object.metadata.finalizers, ["foregroundDeletion"]);
});

test("a namespace's first delete starts its termination; the next ones change nothing", () => {
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } } as KubeObject;
  const first = deletion(NAMESPACE, ns, {}, now);
  assert.equal(first.type, "MODIFIED");
  assert.equal((first.object as KubeObject & { status: { phase: string } }).status.phase, "Terminating");
  assert.equal(deletion(NAMESPACE, first.object, {}, now).type, "NONE");
});

test("an update removes a terminating object once nothing holds it: finalizers, a kubelet's grace, a namespace's spec.finalizers", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", deletionTimestamp: "2026-01-01T00:00:00Z" } } as KubeObject;
  assert.equal(removedByUpdate(CONFIG_MAP, cm), true);
  assert.equal(removedByUpdate(CONFIG_MAP, { ...cm, metadata: { ...cm.metadata, finalizers: ["x.io/f"] } }), false);
  assert.equal(removedByUpdate(CONFIG_MAP, { ...cm, metadata: { name: "c" } }), false, "not being deleted");
  assert.equal(removedByUpdate(POD, pod({ nodeName: "n" }, { deletionTimestamp: "2026-01-01T00:00:30Z", deletionGracePeriodSeconds: 30 })), false);
  assert.equal(removedByUpdate(POD, pod({}, { deletionTimestamp: "2026-01-01T00:00:30Z", deletionGracePeriodSeconds: 30 })), true);
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", deletionTimestamp: "2026-01-01T00:00:00Z" }, spec: { finalizers: ["kubernetes"] } } as KubeObject;
  assert.equal(removedByUpdate(NAMESPACE, ns), false);
  assert.equal(removedByUpdate(NAMESPACE, { ...ns, spec: { finalizers: [] } } as KubeObject), true);
});
