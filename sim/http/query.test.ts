import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../contract.ts";
import { queryBool, queryInt, queryOptionalBool } from "./query.ts";

// Each spelling and how kube-apiserver v1.36 answered it in `npm run conformance` (watch: a stream or a list).
const CASES: ReadonlyArray<readonly [string, boolean]> = [
  ["watch=true", true],
  ["watch=True", true],
  ["watch=TRUE", true],
  ["watch=t", true],
  ["watch=T", true],
  ["watch=1", true],
  ["watch=yes", true],
  ["watch=", true],
  ["watch=false", false],
  ["watch=False", false],
  ["watch=FALSE", false],
  ["watch=0", false],
  ["watch=f", true],
  ["watch=F", true],
  ["", false],
];

for (const [query, expected] of CASES) {
  test(`queryBool: ${query || "(absent)"} is ${String(expected)}`, () => {
    assert.equal(queryBool(new URLSearchParams(query), "watch"), expected);
  });
}

test("queryOptionalBool: absent is undefined, present as queryBool", () => {
  assert.equal(queryOptionalBool(new URLSearchParams(""), "sendInitialEvents"), undefined);
  assert.equal(queryOptionalBool(new URLSearchParams("sendInitialEvents=false"), "sendInitialEvents"), false);
  assert.equal(queryOptionalBool(new URLSearchParams("sendInitialEvents=1"), "sendInitialEvents"), true);
});

test("queryInt: integers, signed; anything else a 400 worded as strconv.ParseInt", () => {
  assert.equal(queryInt(new URLSearchParams("timeoutSeconds=30"), "timeoutSeconds"), 30);
  assert.equal(queryInt(new URLSearchParams("gracePeriodSeconds=-1"), "gracePeriodSeconds"), -1);
  assert.throws(() => queryInt(new URLSearchParams("timeoutSeconds=abc"), "timeoutSeconds"), (error: unknown) => error instanceof ApiError && error.code === 400 && error.message === 'strconv.ParseInt: parsing "abc": invalid syntax');
  assert.throws(() => queryInt(new URLSearchParams("timeoutSeconds=1.5"), "timeoutSeconds"), ApiError);
});
