/** Asserting on the sim's in-process API errors in tests. */
import assert from "node:assert/strict";
import { ApiError } from "../../sim/contract.ts";

/** The ApiError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  assert.fail("expected an ApiError");
}
