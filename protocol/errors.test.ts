import assert from "node:assert/strict";
import { test } from "node:test";
import { isPermanent, StatusError, transientStatus } from "./errors.ts";

test("one policy: no answer, 401, 408, 409, 425, 429 and every 5xx may pass on retry; any other refusal is of the request itself", () => {
  for (const status of [0, 401, 408, 409, 425, 429, 500, 502, 503, 504]) assert.equal(transientStatus(status), true, String(status));
  for (const status of [400, 403, 404, 405, 410, 413, 415, 422]) assert.equal(transientStatus(status), false, String(status));
});

test("a StatusError carries its status, reason, message and Retry-After, and says whether it is transient", () => {
  const error = new StatusError(429, "TooManyRequests", "slow down", 3_000);
  assert.deepEqual([error.status, error.reason, error.message, error.retryAfterMs, error.transient], [429, "TooManyRequests", "slow down", 3_000, true]);
  assert.equal(new StatusError(422, "Invalid", "bad").transient, false);
});

test("only a StatusError the policy calls permanent is permanent: anything else (no answer, a bug) may pass", () => {
  assert.equal(isPermanent(new StatusError(404, "NotFound", "gone")), true);
  assert.equal(isPermanent(new StatusError(503, "ServiceUnavailable", "down")), false);
  assert.equal(isPermanent(new Error("socket hang up")), false);
  assert.equal(isPermanent(undefined), false);
});
