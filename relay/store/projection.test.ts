import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { valuesAt } from "../../protocol/index.ts";
import { matchesSelector, parseLabelSelector } from "./label-selector.ts";
import { Projection, pathTree, projectValue } from "./projection.ts";

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

test("a longer path under one kept whole changes nothing; missing fields stay missing", () => {
  assert.deepEqual(projectValue({ a: { b: 1, c: 2 } }, pathTree(["a", "a.b"])), { a: { b: 1, c: 2 } });
  assert.deepEqual(projectValue({ a: { b: 1, c: 2 } }, pathTree(["a.b", "a"])), { a: { b: 1, c: 2 } });
  assert.deepEqual(projectValue({ x: 1 }, pathTree(["a.b"])), {});
  assert.deepEqual(projectValue({ a: "text" }, pathTree(["a.b"])), { a: "text" }, "a malformed value is kept as it is");
});

test("property: what a declared path reads is the same in the projection as in the object", () => {
  const key = fc.constantFrom("a", "b", "c");
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: "small" }, fc.string(), fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(key, tie("node"), { maxKeys: 3 })),
  })).node;
  const path = fc.array(fc.tuple(key, fc.boolean()), { minLength: 1, maxLength: 3 }).map((parts) => parts.map(([k, many]) => (many ? `${k}[]` : k)).join("."));
  fc.assert(
    fc.property(fc.dictionary(key, value), fc.array(path, { minLength: 1, maxLength: 3 }), (object, paths) => {
      const projected = projectValue(object, pathTree(paths));
      for (const p of paths) assert.deepEqual(valuesAt(projected, p), valuesAt(object, p));
    }),
  );
});

test("label selector strings read as the API server reads them", () => {
  const labels = { app: "web", tier: "front" };
  const holds = (selector: string, l: Record<string, string> | undefined = labels): boolean => matchesSelector(parseLabelSelector(selector), l);
  assert.ok(holds("app=web"));
  assert.ok(holds("app==web,tier"));
  assert.ok(holds("app!=db"));
  assert.ok(holds("app!=db", undefined), "!= holds where the label is absent");
  assert.ok(holds("tier in (front, back),!legacy"));
  assert.ok(!holds("tier notin (front)"));
  assert.ok(!holds("app=web,legacy"));
  assert.ok(holds(""), "an empty selector selects everything");
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
