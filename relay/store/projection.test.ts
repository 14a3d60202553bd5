import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject, Watch } from "../../protocol/index.ts";
import { DeliveredFields, WHOLE, fromCache } from "../../protocol/snapshot/fields.ts";
import { Projection } from "./projection.ts";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns", uid: "u1", resourceVersion: "7", labels: { app: "web" }, annotations: { a: "1" }, ownerReferences: [{ kind: "Job", name: "j", uid: "o1", controller: true }], deletionTimestamp: "2026-01-01T00:00:00Z" },
  spec: {
    nodeName: "n1",
    containers: [
      { name: "c", image: "busybox", env: [{ name: "X", value: "y" }], resources: { requests: { cpu: "1" } } },
      { name: "d", image: "busybox" },
    ],
  },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
};

test("a projection keeps the declared paths (through arrays) and the identity, ownership and deletion", () => {
  const kept = new Projection([{ fields: ["spec.nodeName", "spec.containers[].resources", "status.phase"] }]).project(pod);
  assert.deepEqual(kept, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns", uid: "u1", resourceVersion: "7", ownerReferences: pod.metadata.ownerReferences, deletionTimestamp: "2026-01-01T00:00:00Z" },
    spec: { nodeName: "n1", containers: [{ resources: { requests: { cpu: "1" } } }, {}] },
    status: { phase: "Running" },
  });
  assert.equal(pod.spec.containers[0]?.image, "busybox", "the object given is not changed");
});

test("the fields of every rule are kept; a rule without fields keeps the object whole", () => {
  const two = new Projection([{ fields: ["spec.nodeName"] }, { fields: ["metadata.labels"] }]).project(pod);
  assert.deepEqual(two.metadata.labels, { app: "web" });
  assert.equal(two.spec.nodeName, "n1");
  assert.equal(two.status, undefined);
  const whole = new Projection([{ fields: ["spec.nodeName"] }, {}]);
  assert.ok(whole.whole);
  assert.equal(whole.project(pod), pod);
  assert.ok(new Projection([]).whole, "no rule: nothing to project");
});

test("a label-selected rule applies to the objects its selector matches only", () => {
  const projection = new Projection([{ fields: ["spec.nodeName"] }, { labelSelector: "app=web" }, { labelSelector: "tier", fields: ["status.phase"] }]);
  assert.ok(!projection.whole);
  assert.equal(projection.project(pod), pod, "matched by a selected rule without fields: whole");
  const other = { ...pod, metadata: { ...pod.metadata, labels: { app: "db", tier: "x" } } };
  assert.deepEqual(Object.keys(projection.project(other).spec), ["nodeName"]);
  assert.deepEqual(projection.project(other).status, { phase: "Running" });
});

test("equal kept values below the top level are shared between objects, and frozen", () => {
  const projection = new Projection([{ fields: ["spec.tolerations", "status.phase", "metadata.labels"] }]);
  const a = projection.project({ ...pod, spec: { ...pod.spec, tolerations: [{ key: "k", operator: "Exists" }] } });
  const b = projection.project({ ...pod, metadata: { ...pod.metadata, name: "q", uid: "u2" }, spec: { ...pod.spec, tolerations: [{ key: "k", operator: "Exists" }] } });
  assert.equal(a.spec.tolerations, b.spec.tolerations);
  assert.equal(a.metadata.labels, b.metadata.labels);
  assert.ok(Object.isFrozen(a.spec.tolerations) && Object.isFrozen(a.spec.tolerations[0]));
  assert.notEqual(a.metadata, b.metadata, "top-level values are the object's own");
  assert.ok(!Object.isFrozen(a.metadata));
  assert.deepEqual(b.metadata.name, "q");
});

test("a delivery sends an object the cache cut to its watches' fields as it is, and cuts one the cache keeps whole for another watch", () => {
  const object: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name: "p", uid: "u", labels: { app: "web" } }, spec: { nodeName: "n1" }, status: { phase: "Running" } };
  const cache = new Projection([{ fields: ["status.phase"] }, { labelSelector: "app=web", fields: undefined }]);
  const whole = cache.project(object);
  const cut = cache.project({ ...object, metadata: { ...object.metadata, labels: {} } });
  assert.equal(whole, object, "app=web: kept whole for the watch without fields");
  assert.equal(cache.trimmed(whole), false);
  assert.equal(cache.trimmed(cut), true);
  const fields = new DeliveredFields();
  const watch = (declared?: string[]): Watch => ({ apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "self" }, ...(declared ? { fields: declared } : {}) });
  const project = fromCache(fields.ofWatch(watch(["status.phase"])), cache);
  assert.equal(project(cut), cut, "no copy of what the cache cut already");
  assert.deepEqual(Object.keys(project(whole)), ["apiVersion", "kind", "metadata", "status"]);
  assert.equal(fromCache(fields.ofWatch(watch()), cache), WHOLE);
});
