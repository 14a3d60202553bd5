import assert from "node:assert/strict";
import { test } from "node:test";
import { StatusError, type Action, type EventAction, type KubeObject } from "../../protocol/index.ts";
import { Metrics } from "../ops/metrics.ts";
import { Narrator, isRecreation, narrate } from "./narrate.ts";

const parent = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", namespace: "default", name: "y" };
const pod = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" } });
const create = (name: string): Action => ({ type: "create", object: pod(name) });
const event = (reason: string, message: string): EventAction => ({ type: "event", target: parent, eventType: "Normal", reason, message });

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

test("a create is a recreation when an Event reporting it (right after it in the plan) is Recreated, whatever the Events' text", () => {
  assert.equal(isRecreation([event("Recreated", "recreated worker train-1 as pod job-train-1 (pod job-train-0 was deleted)")]), true);
  assert.equal(isRecreation([event("Created", "recreated job-train-1")]), false, "the reason says so, not the message");
  assert.equal(isRecreation([]), false);
});

test("the narrator says each applied action once, with the generated name and whether it recreates; a failure for good is a warning, counted", async () => {
  const lines: string[] = [];
  const metrics = new Metrics();
  const narrator = new Narrator((level, msg, fields) => lines.push(`${level} ${msg}${fields ? ` ${JSON.stringify(fields)}` : ""}`), metrics);
  const generated = { type: "create", object: { apiVersion: "v1", kind: "Pod", metadata: { generateName: "x-", namespace: "default" } } } as const;
  narrator.applied({ action: generated, answer: pod("x-abcde"), reports: [event("Recreated", "recreated a worker")], target: { parent } });
  narrator.applied({ action: create("x"), answer: undefined, reports: [], target: { parent } });
  narrator.failed(create("bad"), new StatusError(422, "Invalid", "bad pod"), { parent, controller: "c", key: "default/y" });
  assert.deepEqual(lines, [
    "info recreated Pod default/x-abcde for FederatedLearningJob default/y",
    "info created Pod default/x for FederatedLearningJob default/y",
    'warn action failed for good {"controller":"c","key":"default/y","action":"create","error":"bad pod"}',
  ]);
  assert.match(await metrics.render(), /^edgeloop_apply_errors_total\{controller="c",action="create"\} 1$/m);
});
