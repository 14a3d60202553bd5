import assert from "node:assert/strict";
import { test } from "node:test";
import { isTooLargeResourceVersion, relistReason } from "./cache.ts";

test("a 504 with the ResourceVersionTooLarge cause (or its message) is a too-large resourceVersion; other errors are not", () => {
  assert.ok(isTooLargeResourceVersion({ code: 504, reason: "Timeout", details: { causes: [{ reason: "ResourceVersionTooLarge" }] } }));
  assert.ok(isTooLargeResourceVersion({ code: 504, message: "Timeout: Too large resource version: 15000, current: 100" }));
  assert.ok(!isTooLargeResourceVersion({ code: 504, message: "Timeout: request did not complete" }));
  assert.ok(!isTooLargeResourceVersion({ code: 410, reason: "Expired" }));
  assert.ok(!isTooLargeResourceVersion(null));
});

test("a relist whose list is behind what was seen is a rollback, unless the server said too-large", () => {
  assert.equal(relistReason("expired", 100, 14_681), "rollback");
  assert.equal(relistReason("forced", 100, 14_681), "rollback");
  assert.equal(relistReason(undefined, 100, 14_681), "rollback");
  assert.equal(relistReason("too-large", 100, 14_681), "too-large");
  assert.equal(relistReason("expired", 15_000, 14_681), "expired");
  assert.equal(relistReason("forced", undefined, 14_681), "forced", "an opaque resourceVersion is not compared");
  assert.equal(relistReason(undefined, 15_000, 14_681), "expired");
});
