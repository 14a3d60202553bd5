import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { countSlots } from "./slots.ts";

test("a slot filled once is fine, empty is lost, filled twice is one duplicate; an unexpected object is a duplicate", () => {
  assert.deepEqual(countSlots(["a", "b", "c"], ["a", "b", "b", "x"]), { expected: 3, once: 1, lost: 1, duplicated: 2, examples: ["+x", "b×2", "-c"] });
  assert.deepEqual(countSlots(["a"], ["a"]), { expected: 1, once: 1, lost: 0, duplicated: 0, examples: [] });
});

test("once + lost + slots duplicated = expected, and observed = once + duplicated + filled duplicates' firsts", () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string({ maxLength: 3 })), fc.array(fc.string({ maxLength: 3 })), (expected, observed) => {
      const count = countSlots(expected, observed);
      const present = new Set(observed);
      const multiply = expected.filter((key) => observed.filter((o) => o === key).length > 1).length;
      assert.equal(count.once + count.lost + multiply, expected.length);
      assert.equal(count.lost, expected.filter((key) => !present.has(key)).length);
      assert.equal(observed.length, count.once + multiply + count.duplicated);
    }),
  );
});
