import assert from "node:assert/strict";
import { test } from "node:test";
import type { Action, KubeObject } from "../../protocol/index.ts";
import { OwnStatusWrites, onlyStatusChanged } from "./echoes.ts";

const JOB = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const target = { ...JOB, namespace: "ns", name: "j" };
const reconcile = { controller: "c", key: "ns/j" };
const write = (ref: typeof target = target): Action => ({ type: "status", target: ref, status: {} });

/** Sends a status write of a reconcile's plan to `writes`; the function returned gives its answer. */
function sending(writes: OwnStatusWrites, ref: typeof target = target): (answer: KubeObject | undefined) => void {
  writes.sending(write(ref), reconcile);
  return (answer) => writes.settled(write(ref), answer, reconcile);
}
const job = (rv: string, status: object, extra: Partial<KubeObject["metadata"]> = {}, spec: object = { a: 1 }): KubeObject => ({ ...JOB, metadata: { namespace: "ns", name: "j", uid: "u1", generation: 1, resourceVersion: rv, ...extra }, spec, status } as KubeObject);

test("only a change confined to status, resourceVersion and managedFields is status-only", () => {
  assert.equal(onlyStatusChanged(job("1", { phase: "Pending" }), job("2", { phase: "Running" }, { managedFields: [{ manager: "x" }] })), true);
  assert.equal(onlyStatusChanged(job("1", {}), job("2", {}, {}, { a: 2 })), false, "a spec change");
  assert.equal(onlyStatusChanged(job("1", {}), job("2", {}, { labels: { l: "v" } })), false, "a label change");
  assert.equal(onlyStatusChanged(job("1", {}), job("2", {}, { generation: 2 })), false, "a generation change");
  assert.equal(onlyStatusChanged(job("1", {}), job("2", {}, { deletionTimestamp: "2026-01-01T00:00:00Z" })), false, "a deletion starting");
});

test("the echo of an answered status write is recognised by its resourceVersion; another writer's is not", () => {
  const writes = new OwnStatusWrites();
  const before = job("1", { phase: "Pending" });
  sending(writes)(job("2", { phase: "Running" }));
  assert.equal(writes.isEcho(job("2", { phase: "Running" }), before), true);
  assert.equal(writes.isEcho(job("3", { phase: "Failed" }), job("2", { phase: "Running" })), false, "a later status write by someone else");
  assert.equal(writes.isEcho(job("2", { phase: "Running" }, {}, { a: 2 }), before), false, "our resourceVersion, but the change since the cache's state holds more (a relist)");
  assert.equal(writes.isEcho(job("2", { phase: "Running" }), undefined), false, "no previous state to compare");
  assert.equal(writes.isEcho(job("2", { phase: "Running" }), { ...before, metadata: { ...before.metadata, uid: "u0" } }), false, "another incarnation");
});

test("an echo that arrives before the write's answer is recognised while the write is in flight, and not after a failed write", () => {
  const writes = new OwnStatusWrites();
  const answered = sending(writes);
  assert.equal(writes.isEcho(job("2", { phase: "Running" }), job("1", {})), true, "in flight");
  answered(undefined);
  assert.equal(writes.isEcho(job("3", { phase: "Running" }), job("2", {})), false, "the write failed: nothing of ours is in flight");
});

test("only the status writes of a reconcile's plan are recorded: not the outbox's, not an API's, nor other actions", () => {
  const writes = new OwnStatusWrites();
  writes.sending(write(), { controller: "c" });
  assert.equal(writes.isEcho(job("2", { phase: "Running" }), job("1", {})), false, "an outbox plan's write is no reconcile's");
  writes.settled(write(), job("2", {}), { controller: "c" });
  assert.equal(writes.isEcho(job("2", {}), job("1", { phase: "x" })), false);
  const patch: Action = { type: "patch", target, patch: {} };
  writes.sending(patch, reconcile);
  writes.settled(patch, job("3", {}), reconcile);
  assert.equal(writes.isEcho(job("3", {}), job("2", { phase: "x" })), false, "a patch is not a status write");
});

test("the answered writes remembered are bounded: the oldest are forgotten first", () => {
  const writes = new OwnStatusWrites(2);
  for (const name of ["a", "b", "c"]) sending(writes, { ...target, name })({ ...job("5", {}), metadata: { ...job("5", {}).metadata, name } });
  const named = (name: string, rv: string, status: object): KubeObject => ({ ...job(rv, status), metadata: { ...job(rv, status).metadata, name } });
  assert.equal(writes.isEcho(named("a", "5", {}), named("a", "4", { p: 1 })), false, "forgotten");
  assert.equal(writes.isEcho(named("c", "5", {}), named("c", "4", { p: 1 })), true);
});
