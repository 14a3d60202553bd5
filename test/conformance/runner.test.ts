import assert from "node:assert/strict";
import { test } from "node:test";
import { at, namespaceOf, substitute } from "./runner.ts";

test("namespaceOf: a DNS label from the scenario name, at most 63 characters", () => {
  assert.equal(namespaceOf({ name: "watch: 410 Gone after compaction" }), "c-watch-410-gone-after-compaction");
  const long = namespaceOf({ name: "x".repeat(100) });
  assert.ok(long.length <= 63 && !long.endsWith("-"));
});

test("at: dotted paths into objects and arrays, items.length", () => {
  const body = { items: [{ metadata: { name: "a" } }], metadata: { resourceVersion: "7" } };
  assert.equal(at(body, "items.0.metadata.name"), "a");
  assert.equal(at(body, "items.length"), 1);
  assert.equal(at(body, "metadata.resourceVersion"), "7");
  assert.equal(at(body, "nothing.here"), undefined);
});

test("substitute: {name} replaced by captured values, unknown ones left", () => {
  const vars = new Map<string, unknown>([["ns", "c-x"], ["rv", "42"]]);
  assert.equal(substitute("/api/v1/namespaces/{ns}/configmaps?rv={rv}&{other}", vars), "/api/v1/namespaces/c-x/configmaps?rv=42&{other}");
});
