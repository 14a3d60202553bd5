import assert from "node:assert/strict";
import { test } from "node:test";
import type { Action, KubeObject, Plan } from "../../protocol/index.ts";
import { narrate, recreatedNames } from "./narrate.ts";

const parent = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", namespace: "default", name: "y" };
const pod = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" } });
const create = (name: string): Action => ({ type: "create", object: pod(name) });
const event = (reason: string, message: string): Action => ({ type: "event", target: parent, eventType: "Normal", reason, message });

test("each action reads as one sentence naming the object and the parent it was done for", () => {
  const target = { apiVersion: "v1", kind: "Pod", namespace: "default", name: "x" };
  assert.equal(narrate(create("x"), parent), "created Pod default/x for FederatedLearningJob default/y");
  assert.equal(narrate(create("x"), parent, { recreated: true }), "recreated Pod default/x for FederatedLearningJob default/y");
  assert.equal(narrate({ type: "create", object: { apiVersion: "v1", kind: "Pod", metadata: { generateName: "x-", namespace: "default" } } }, parent, { name: "x-abcde" }), "created Pod default/x-abcde for FederatedLearningJob default/y");
  assert.equal(narrate({ type: "delete", target }, parent), "deleted Pod default/x for FederatedLearningJob default/y");
  assert.equal(narrate({ type: "patch", target, patch: {} }, parent), "patched Pod default/x for FederatedLearningJob default/y");
  assert.equal(narrate({ type: "status", target: parent, status: {} }, parent), "updated the status of FederatedLearningJob default/y", "no 'for' itself");
  assert.equal(narrate({ type: "bind", pod: { namespace: "default", name: "x" }, node: "edge1" }, undefined), "bound Pod default/x to Node edge1");
  assert.equal(narrate(event("Created", "created pod(s) x"), parent), "recorded Normal Event Created on FederatedLearningJob default/y: created pod(s) x");
  assert.equal(narrate({ type: "delete", target: { apiVersion: "v1", kind: "Node", name: "n1" } }, undefined), "deleted Node n1", "cluster-scoped, no parent");
});

test("a create is a recreation only when the plan's own Recreated Event names the object", () => {
  const plan: Plan = { actions: [create("job-train-1"), create("job-train-10"), event("Recreated", "recreated worker train-1 as pod job-train-1 (pod job-train-0 was deleted)")] };
  assert.deepEqual([...recreatedNames(plan)], ["job-train-1"], "job-train-10 is not job-train-1");
  assert.deepEqual([...recreatedNames({ actions: [create("a"), event("Created", "created a")] })], []);
});
