import assert from "node:assert/strict";
import { test } from "node:test";
import { requirementHolds } from "./selector-requirement.ts";

test("selector requirements: set operators on present and absent values; Gt/Lt on base-10 integers only", () => {
  assert.equal(requirementHolds("In", ["a", "b"], "a"), true);
  assert.equal(requirementHolds("In", ["a"], undefined), false);
  assert.equal(requirementHolds("NotIn", ["a"], undefined), true, "an absent label is not in any set");
  assert.equal(requirementHolds("NotIn", ["a"], "a"), false);
  assert.equal(requirementHolds("Exists", [], ""), true, "an empty value is a value");
  assert.equal(requirementHolds("DoesNotExist", [], undefined), true);
  assert.equal(requirementHolds("Gt", ["4"], "8"), true);
  assert.equal(requirementHolds("Lt", ["4"], "-2"), true);
  for (const [values, value] of [[["4"], "8.5"], [["4"], "0x10"], [["4", "5"], "8"], [["four"], "8"], [["4"], undefined]] as const) {
    assert.equal(requirementHolds("Gt", values, value), false, `${JSON.stringify(values)} ${String(value)}`);
  }
  assert.equal(requirementHolds("Near", ["a"], "a"), false, "an unknown operator holds for nothing");
});
