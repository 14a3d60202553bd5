import assert from "node:assert/strict";
import { test } from "node:test";
import { decide, microTime } from "./leader.ts";

const now = new Date("2026-11-23T10:00:00.000Z");

test("no lease: create it; ours: renew it", () => {
  assert.equal(decide(undefined, "a", now, 15), "create");
  assert.equal(decide({ holderIdentity: "a", renewTime: microTime(now), leaseDurationSeconds: 15 }, "a", now, 15), "renew");
});

test("another holder: wait while the lease is fresh, take over once it lapsed or was released", () => {
  const renewed = new Date(now.getTime() - 10_000);
  assert.equal(decide({ holderIdentity: "b", renewTime: microTime(renewed), leaseDurationSeconds: 15 }, "a", now, 15), "wait");
  assert.equal(decide({ holderIdentity: "b", renewTime: microTime(renewed), leaseDurationSeconds: 5 }, "a", now, 15), "takeover");
  assert.equal(decide({ holderIdentity: null, renewTime: microTime(now) }, "a", now, 15), "takeover");
  assert.equal(decide({ holderIdentity: "b", renewTime: "garbage" }, "a", now, 15), "takeover");
});

test("MicroTime has six fractional digits", () => {
  assert.equal(microTime(now), "2026-11-23T10:00:00.000000Z");
});
