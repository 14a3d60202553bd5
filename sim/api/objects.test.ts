import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { jsonEqual, objectShapeProblem, sameContent } from "./objects.ts";

test("jsonEqual: key order and undefined members do not matter; values, types and array order do", () => {
  assert.ok(jsonEqual({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 }));
  assert.ok(jsonEqual({ a: 1, u: undefined }, { a: 1 }));
  assert.ok(jsonEqual(null, null));
  assert.ok(!jsonEqual({ a: 1 }, { a: "1" }));
  assert.ok(!jsonEqual([1, 2], [2, 1]));
  assert.ok(!jsonEqual({ a: [] }, { a: {} }));
  assert.ok(!jsonEqual({ a: null }, { a: {} }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(!jsonEqual({ a: 1, b: undefined }, { a: 1, c: 2 }));
});

test("sameContent ignores resourceVersion and managedFields only", () => {
  const object = (rv: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", resourceVersion: rv, managedFields: [{ manager: rv }] }, data: { a: "1" }, ...extra }) as KubeObject;
  assert.ok(sameContent(object("1"), object("2")));
  assert.ok(!sameContent(object("1"), object("1", { data: { a: "2" } })));
});

test("objectShapeProblem: only a JSON object with string apiVersion and kind and an object metadata decodes", () => {
  assert.equal(objectShapeProblem({ apiVersion: "v1", kind: "Pod", metadata: {} }), undefined);
  assert.equal(objectShapeProblem({ apiVersion: "v1", kind: "Pod" }), undefined);
  for (const bad of [0, "x", null, [], { kind: "Pod" }, { apiVersion: 5, kind: "Pod" }, { apiVersion: "v1", kind: {} }, { apiVersion: "v1", kind: "Pod", metadata: [] }]) {
    assert.equal(typeof objectShapeProblem(bad), "string", JSON.stringify(bad));
  }
});
