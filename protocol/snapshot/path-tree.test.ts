import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { valuesAt } from "../index.ts";
import { pathTree, projectValue } from "./path-tree.ts";

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
