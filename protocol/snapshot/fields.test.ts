import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerManifest, type KubeObject, type Watch } from "../index.ts";
import { DeliveredFields, WHOLE, fromCache, type Projector } from "./fields.ts";

const fields = new DeliveredFields();
const watchProjection = (w: Watch): Projector => fields.ofWatch(w);
const kindProjection = (c: ControllerManifest, kind: string): Projector => fields.ofKind(c, kind);

const pod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { namespace: "ns", name: "p", uid: "u", resourceVersion: "7", labels: { app: "a" }, annotations: { note: "n" }, ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "ux" }] },
  spec: { nodeName: "edge1", containers: [{ name: "c", image: "i", env: [{ name: "E", value: "v" }] }] },
  status: { phase: "Running", containerStatuses: [{ name: "c", state: { waiting: { reason: "CrashLoopBackOff" } } }] },
} as KubeObject;
const watch = (fields?: string[], mapping: Watch["mapping"] = { by: "self" }): Watch => ({ apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping, ...(fields ? { fields } : {}) }) as Watch;

test("a watch's objects are delivered with the fields it declares, its field mapping's path and what identifies them", () => {
  const project = watchProjection(watch(["status.phase", "status.containerStatuses[].state.waiting.reason"], { by: "field", path: "spec.nodeName" }));
  assert.deepEqual(project(pod), {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "ns", name: "p", uid: "u", resourceVersion: "7", ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "ux" }] },
    spec: { nodeName: "edge1" },
    status: { phase: "Running", containerStatuses: [{ state: { waiting: { reason: "CrashLoopBackOff" } } }] },
  });
  assert.equal(pod.metadata.annotations?.["note"], "n", "the cached object is not changed");
});

test("a watch that declares no fields gets its objects whole, as they are", () => {
  assert.equal(watchProjection(watch()), WHOLE);
  assert.equal(watchProjection(watch())(pod), pod);
});

test("an events controller's objects of a kind carry the union of its watches' fields of that kind; whole when one declares none", () => {
  const two = ControllerManifest.parse({ name: "two", delivery: "events", watches: [watch(["metadata.labels"], { by: "none" }), watch(["status.phase"], { by: "none" })] });
  assert.deepEqual(kindProjection(two, "Pod.v1")(pod).metadata.labels, { app: "a" });
  assert.equal((kindProjection(two, "Pod.v1")(pod) as { status?: { phase?: string } }).status?.phase, "Running");
  assert.equal((kindProjection(two, "Pod.v1")(pod) as { spec?: object }).spec, undefined);
  const whole = ControllerManifest.parse({ name: "whole", delivery: "events", watches: [watch(["metadata.labels"], { by: "none" }), watch(undefined, { by: "none" })] });
  assert.equal(kindProjection(whole, "Pod.v1"), WHOLE);
});

test("an object the cache holds cut to its watches' fields goes as it is; one it keeps whole for another watch is cut", () => {
  const cut = watchProjection(watch(["status.phase"]))(pod);
  const cache = { trimmed: (object: KubeObject): boolean => object === cut };
  const project = fromCache(watchProjection(watch(["status.phase"])), cache);
  assert.equal(project(cut), cut, "no copy of what the cache cut already");
  assert.deepEqual(Object.keys(project(pod)), ["apiVersion", "kind", "metadata", "status"]);
  assert.deepEqual(Object.keys(fromCache(watchProjection(watch(["status.phase"])), undefined)(pod)), ["apiVersion", "kind", "metadata", "status"], "no cache: cut");
  assert.equal(fromCache(watchProjection(watch()), cache), WHOLE);
});
