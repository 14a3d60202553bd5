import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { fnv1a64, shortHash } from "./hash.ts";

/** FNV-1a 64 as its definition reads, on BigInts: what the word arithmetic must equal. */
function reference(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

test("FNV-1a 64: the published test vectors", () => {
  assert.equal(fnv1a64(""), 0xcbf29ce484222325n);
  assert.equal(fnv1a64("a"), 0xaf63dc4c8601ec8cn);
  assert.equal(fnv1a64("foobar"), 0x85944171f73967e8n);
});

test("FNV-1a 64 on 32-bit words equals the BigInt definition for any text", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => fnv1a64(text) === reference(text)),
    { numRuns: 2_000 },
  );
});

test("short hashes (names and spec-hash labels of existing objects) are unchanged", () => {
  // Computed with the BigInt implementation before it was replaced: a change would roll every pod.
  assert.equal(shortHash({ spec: { a: 1, b: [1, 2] } }), reference(JSON.stringify({ spec: { a: 1, b: [1, 2] } })).toString(36).padStart(13, "0").slice(-10));
  assert.equal(shortHash(["uid", "hash", "train-0", ""], 5), reference('["uid","hash","train-0",""]').toString(36).padStart(13, "0").slice(-5));
});

test("stableStringify is JSON with sorted keys at any depth (recursive, then iterative past its recursion limit)", async () => {
  const { stableStringify } = await import("./hash.ts");
  // The definition, recursive (JSON.stringify cannot sort: integer-like keys come first in a JS object).
  const reference = (v: unknown): string =>
    Array.isArray(v) ? `[${v.map(reference).join(",")}]` : typeof v === "object" && v !== null ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`).join(",")}}` : JSON.stringify(v);
  fc.assert(fc.property(fc.jsonValue(), (value) => assert.equal(stableStringify(value), reference(value))), { numRuns: 300 });
  let deep: unknown = { z: 1, a: [null], "10": 2, "": 3 };
  for (let i = 0; i < 1_000; i++) deep = i % 2 === 0 ? [deep] : { b: deep, a: i };
  assert.equal(stableStringify(deep), reference(deep), "past the recursion limit: the same text");
  for (let i = 0; i < 50_000; i++) deep = [deep];
  assert.ok(stableStringify(deep).startsWith("[[[["), "no depth overflows the call stack");
  assert.equal(stableStringify({ b: undefined, a: [undefined] }), '{"a":[null]}', "undefined members as JSON has them");
});

test("deepEqual is equality of the sorted-key JSON, compared in place", async () => {
  const { stableStringify } = await import("./hash.ts");
  const { deepEqual } = await import("./merge-patch.ts");
  const shuffled = (v: unknown): unknown => (Array.isArray(v) ? v.map(shuffled) : typeof v === "object" && v !== null ? Object.fromEntries(Object.keys(v).reverse().map((k) => [k, shuffled((v as Record<string, unknown>)[k])])) : v);
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      assert.equal(deepEqual(a, shuffled(a)), true);
      assert.equal(deepEqual(a, b), stableStringify(a) === stableStringify(b));
    }),
    { numRuns: 300 },
  );
  assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
  assert.equal(deepEqual({ a: null }, {}), false);
  assert.equal(deepEqual([1, undefined], [1, null]), true);
});
