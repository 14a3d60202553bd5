import assert from "node:assert/strict";
import { test } from "node:test";
import { diff, summarise, without } from "./diff.ts";

test("equal values have no difference", () => {
  assert.deepEqual(diff({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] }), []);
});

test("differences are leaf paths with each side's value; absent on one side is undefined", () => {
  assert.deepEqual(diff({ a: 1, b: { c: 2 } }, { a: 1, b: { c: 3, d: 4 } }), [
    { path: "b.c", sim: 2, real: 3 },
    { path: "b.d", sim: undefined, real: 4 },
  ]);
});

test("arrays compare by index, a longer one lists its extra items", () => {
  assert.deepEqual(diff([1, 2], [1, 2, 3]), [{ path: "2", sim: undefined, real: 3 }]);
});

test("a type change is one difference at that path", () => {
  assert.deepEqual(diff({ a: { b: 1 } }, { a: "x" }), [{ path: "a", sim: { b: 1 }, real: "x" }]);
  assert.deepEqual(diff(1, 2), [{ path: "(root)", sim: 1, real: 2 }]);
});

test("without drops dotted paths, * matching every key or index", () => {
  const value = { code: 200, body: { items: [{ status: 1, spec: 2 }, { status: 3, spec: 4 }], metadata: { a: 1 } } };
  assert.deepEqual(without(value, ["body.items.*.status", "body.metadata"]), { code: 200, body: { items: [{ spec: 2 }, { spec: 4 }] } });
  assert.deepEqual(without(value, ["body.items.0"]), { code: 200, body: { items: [{ status: 3, spec: 4 }], metadata: { a: 1 } } });
  assert.deepEqual(without(value, ["body.nothing.here"]), value);
});

test("the summary names the first differences and counts the rest", () => {
  const line = summarise([
    { path: "a", sim: 1, real: 2 },
    { path: "b", sim: undefined, real: "x" },
    { path: "c", sim: true, real: false },
  ]);
  assert.equal(line, 'a: sim 1, real 2; b: sim absent, real "x" (+1 more)');
});
