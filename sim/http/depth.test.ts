import assert from "node:assert/strict";
import { test } from "node:test";
import { nestedDeeperThan } from "./depth.ts";

test("nesting is measured in arrays and objects, iteratively", () => {
  assert.equal(nestedDeeperThan({ a: [1, { b: 2 }] }, 3), false);
  assert.equal(nestedDeeperThan({ a: [1, { b: {} }] }, 3), true);
  assert.equal(nestedDeeperThan("text", 0), false);
  const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`) as unknown;
  assert.equal(nestedDeeperThan(deep), true);
});
