import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { badBody, badUtf8Body, deepText, garbage, hostileEnvelope, jsonPaths, mutated, paddedBody, pathAt, REMOVE, setAt, wrongTarget, type Json } from "./generators.ts";

const TEMPLATE: Json = { controller: "c", key: "ns/name", parent: null, children: { "Pod.v1": [] }, now: "2026-01-01T00:00:00Z" };
const decoder = new TextDecoder();

function parses(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

test("paths reach every value, and setAt replaces or removes one without touching the template", () => {
  assert.deepEqual(jsonPaths({ a: [1, { b: 2 }] }), [[], ["a"], ["a", 0], ["a", 1], ["a", 1, "b"]]);
  const copy = JSON.stringify(TEMPLATE);
  assert.deepEqual(setAt(TEMPLATE, ["children", "Pod.v1"], 5), { ...(TEMPLATE as object), children: { "Pod.v1": 5 } });
  assert.equal(Object.hasOwn(setAt(TEMPLATE, ["parent"], REMOVE) as object, "parent"), false);
  assert.deepEqual(setAt([1, 2, 3], [1], REMOVE), [1, 3]);
  assert.equal(JSON.stringify(TEMPLATE), copy);
  assert.equal(pathAt(TEMPLATE, ["children", "Pod.v1"]) instanceof Array, true);
  assert.equal(pathAt(TEMPLATE, ["nothing", 3]), null);
});

test("every mutation differs from the template, and is the same for the same seed", () => {
  const valid = JSON.stringify(TEMPLATE);
  const sample = fc.sample(mutated(TEMPLATE), { numRuns: 80, seed: 7 });
  for (const bad of sample) assert.notEqual(decoder.decode(bad.body), valid, bad.label);
  assert.deepEqual(fc.sample(mutated(TEMPLATE), { numRuns: 80, seed: 7 }).map((b) => b.label), sample.map((b) => b.label));
});

test("garbage covers non-JSON, bad UTF-8, deep nesting and oversized bodies", () => {
  const sample = fc.sample(garbage(TEMPLATE, { limitBytes: 1000 }), { numRuns: 400, seed: 3 });
  assert.ok(sample.some((b) => parses(b.body) === undefined), "some bodies are not JSON");
  assert.ok(sample.some((b) => b.label.startsWith("bad UTF-8")));
  assert.ok(sample.some((b) => b.body.byteLength > 1000 && b.label.startsWith("oversized")));
  assert.ok(sample.some((b) => / deep$/.test(b.label)));
  assert.equal(fc.sample(garbage(TEMPLATE, { limitBytes: 1000, oversized: false }), { numRuns: 400, seed: 3 }).some((b) => b.label.startsWith("oversized")), false);
});

test("bad UTF-8 lands inside the string, the rest of the body intact", () => {
  const bytes = badUtf8Body(TEMPLATE, ["key"], [0xff]);
  assert.equal(parses(bytes), undefined);
  const text = decoder.decode(bytes);
  assert.match(text, /"key":"\uFFFD"/);
  assert.deepEqual({ ...(JSON.parse(text) as object), key: "ns/name" }, TEMPLATE);
});

test("deep text and padded bodies are what they say", () => {
  assert.equal(deepText(3, false), "[[[1]]]");
  assert.equal(deepText(2, true), '{"a":{"a":1}}');
  const padded = paddedBody(100);
  assert.equal(padded.byteLength, 100);
  assert.equal((JSON.parse(decoder.decode(padded)) as { pad: string }).pad.length, 100 - 10);
});

test("a hostile object replaces the slot, as the one item of an array slot, and the envelope stays otherwise valid", () => {
  for (const bad of fc.sample(hostileEnvelope(TEMPLATE, [["parent"], ["children", "Pod.v1"]]), { numRuns: 50, seed: 11 })) {
    const body = JSON.parse(decoder.decode(bad.body)) as { controller: string; children: Record<string, unknown[]>; parent: unknown };
    assert.equal(body.controller, "c");
    if (bad.label.includes("children")) assert.equal(body.children["Pod.v1"]?.length, 1);
    else assert.equal(typeof body.parent, "object");
  }
});

test("badBody mixes the three kinds; wrong targets stay ASCII, start with / and hold no spaces", () => {
  const labels = fc.sample(badBody(TEMPLATE, { limitBytes: 1000, objectSlots: [["parent"]] }), { numRuns: 300, seed: 5 }).map((b) => b.label);
  assert.ok(labels.some((l) => l.startsWith("hostile object")));
  assert.ok(labels.some((l) => l.startsWith("wrong type") || l.startsWith("missing")));
  for (const target of fc.sample(wrongTarget(["/v1/reconcile/x", "/healthz"]), { numRuns: 300, seed: 2 })) {
    assert.match(target, /^\/[\x21-\x7e]*$/, target);
  }
});
