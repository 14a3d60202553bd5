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
