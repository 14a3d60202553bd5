import assert from "node:assert/strict";
import { test } from "node:test";
import { NAMESPACE_REQUIRED, parseGetQuery } from "./query.ts";

test("what a GET asks for, empty parameters counting as absent", () => {
  assert.deepEqual(parseGetQuery({}), { ok: false, failure: { status: 400, message: NAMESPACE_REQUIRED } });
  assert.deepEqual(parseGetQuery({ namespace: "" }), { ok: false, failure: { status: 400, message: NAMESPACE_REQUIRED } });
  assert.deepEqual(parseGetQuery({ namespace: "ns" }), { ok: true, value: { kind: "namespace", namespace: "ns" } });
  assert.deepEqual(parseGetQuery({ namespace: "ns", coordinator: "c", name: "x" }), { ok: true, value: { kind: "coordinator", namespace: "ns", coordinator: "c" } });
  assert.deepEqual(parseGetQuery({ namespace: "ns", aggregator: "a" }), { ok: true, value: { kind: "aggregator", namespace: "ns", aggregator: "a" } });
  assert.deepEqual(parseGetQuery({ namespace: "ns", name: "x", other: "ignored" }), { ok: true, value: { kind: "name", namespace: "ns", name: "x" } });
});

test("a bad namespace, or a name without one, is 400 naming the parameter", () => {
  const bad = parseGetQuery({ namespace: "NOT OK" });
  assert.ok(!bad.ok && bad.failure.status === 400 && bad.failure.message.startsWith("namespace: "));
  const orphan = parseGetQuery({ coordinator: "c" });
  assert.deepEqual(orphan, { ok: false, failure: { status: 400, message: "namespace: required with coordinator" } });
  const long = parseGetQuery({ namespace: "ns", name: "x".repeat(300) });
  assert.ok(!long.ok && long.failure.message.startsWith("name: "));
});
