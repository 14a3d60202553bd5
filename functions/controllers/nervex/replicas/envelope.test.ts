import assert from "node:assert/strict";
import { test } from "node:test";
import { failedAnswer, failedBody, okAnswer, okBody } from "./envelope.ts";

test("success: code 0 with the data; failure: code 1, the message, null data", () => {
  assert.deepEqual(okBody("successfully get replicas", []), { success: true, code: 0, message: "successfully get replicas", data: [] });
  assert.deepEqual(failedBody("coordinator x/y not found"), { success: false, code: 1, message: "coordinator x/y not found", data: null });
  assert.deepEqual(okAnswer("m", { a: 1 }), { status: 200, body: { success: true, code: 0, message: "m", data: { a: 1 } } });
  assert.deepEqual(failedAnswer({ status: 404, message: "gone" }), { status: 404, body: { success: false, code: 1, message: "gone", data: null } });
});
