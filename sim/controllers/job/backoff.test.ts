import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { deadlineRemainingMs, finishedAt, nextBackoffRecord, NO_FAILURES, pastActiveDeadline, pastBackoffLimitOnFailure, remainingBackoffMs } from "./backoff.ts";

const T = Date.parse("2026-01-01T00:00:00Z");

test("failures since the last success accumulate; a later success resets them", () => {
  const one = nextBackoffRecord(NO_FAILURES, [], [T]);
  assert.deepEqual(one, { failuresAfterLastSuccess: 1, lastFailureTime: T });
  const three = nextBackoffRecord(one, [], [T + 2000, T + 1000]);
  assert.deepEqual(three, { failuresAfterLastSuccess: 3, lastFailureTime: T + 2000 });
  assert.deepEqual(nextBackoffRecord(three, [T + 3000], []), NO_FAILURES);
  assert.deepEqual(nextBackoffRecord(three, [T + 3000], [T + 2500, T + 4000]), { failuresAfterLastSuccess: 1, lastFailureTime: T + 4000 }, "only failures after the success count");
  assert.equal(nextBackoffRecord(three, [], []), three);
});

test("the replacement of a failed pod waits 10 s, doubling per failure, at most 10 min, from the last failure", () => {
  assert.equal(remainingBackoffMs(NO_FAILURES, T), 0);
  assert.equal(remainingBackoffMs({ failuresAfterLastSuccess: 1, lastFailureTime: T }, T + 4000), 6000);
  assert.equal(remainingBackoffMs({ failuresAfterLastSuccess: 3, lastFailureTime: T }, T + 4000), 36_000);
  assert.equal(remainingBackoffMs({ failuresAfterLastSuccess: 30, lastFailureTime: T }, T), 600_000);
  assert.equal(remainingBackoffMs({ failuresAfterLastSuccess: 1, lastFailureTime: T }, T + 10_000), 0);
});

const running = (restarts: number, phase = "Running"): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status: { phase, containerStatuses: [{ name: "c", restartCount: restarts }] } }) as KubeObject;

test("under OnFailure the running pods' container restarts count against backoffLimit", () => {
  assert.equal(pastBackoffLimitOnFailure("OnFailure", 2, [running(1)]), false);
  assert.equal(pastBackoffLimitOnFailure("OnFailure", 2, [running(1), running(1)]), true);
  assert.equal(pastBackoffLimitOnFailure("OnFailure", 0, [running(1)]), true, "limit 0: any restart");
  assert.equal(pastBackoffLimitOnFailure("OnFailure", 1, [running(5, "Failed")]), false, "finished pods count as failures, not restarts");
  assert.equal(pastBackoffLimitOnFailure("Never", 1, [running(5)]), false);
});

test("activeDeadlineSeconds counts from startTime and never while suspended", () => {
  const start = "2026-01-01T00:00:00Z";
  assert.equal(deadlineRemainingMs(5, start, false, T + 2000), 3000);
  assert.equal(pastActiveDeadline(5, start, false, T + 5000), true);
  assert.equal(pastActiveDeadline(5, start, true, T + 9000), false);
  assert.equal(pastActiveDeadline(undefined, start, false, T + 9000), false);
  assert.equal(pastActiveDeadline(5, undefined, false, T + 9000), false);
});

test("a pod finished when Ready went False, else when its containers ended, else when it was deleted", () => {
  const pod = (status: object, deletionTimestamp?: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", ...(deletionTimestamp ? { deletionTimestamp } : {}) }, status }) as KubeObject;
  assert.equal(finishedAt(pod({ phase: "Failed", conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-01-01T00:00:07Z" }] }), 0), T + 7000);
  assert.equal(finishedAt(pod({ phase: "Failed", containerStatuses: [{ state: { terminated: { finishedAt: "2026-01-01T00:00:03Z" } } }] }), 0), T + 3000);
  assert.equal(finishedAt(pod({ phase: "Running" }, "2026-01-01T00:00:09Z"), 0), T + 9000);
  assert.equal(finishedAt(pod({ phase: "Running" }), 42), 42);
});
