import assert from "node:assert/strict";
import { test } from "node:test";
import { present, waitFor, WaitTimeout } from "./wait.ts";

test("a wait reads until its condition holds and returns the value that held", async () => {
  let reads = 0;
  const value = await waitFor("the third read", () => ++reads, (n) => n === 3, { intervalMs: 1 });
  assert.equal(value, 3);
  assert.equal(reads, 3, "no read after the condition held");
  const found = await waitFor("a value", async () => (reads++ < 5 ? undefined : { name: "x" }), present, { intervalMs: 1 });
  assert.equal(found.name, "x", "present narrows out undefined");
});

test("past the deadline: a WaitTimeout naming what was awaited and the last value read", async () => {
  let reads = 0;
  const waiting = waitFor("the count to reach 1000", () => ({ count: ++reads }), (seen) => seen.count >= 1000, { timeoutMs: 30, intervalMs: 5 });
  await assert.rejects(waiting, (error: unknown) => {
    assert.ok(error instanceof WaitTimeout);
    assert.match(error.message, /^timed out after 0\.03 s waiting for the count to reach 1000; last seen: \{"count":(\d+)\}$/);
    assert.equal(Number(/"count":(\d+)/.exec(error.message)?.[1]), reads, "the last read is the one shown");
    return true;
  });
});

test("the last value is shown as `describe` words it, cut short when long, an Error by its message", async () => {
  await assert.rejects(waitFor("an even number", () => 7, (n) => n % 2 === 0, { timeoutMs: 5, describe: (n) => `${n}, odd` }), /; last seen: 7, odd$/);
  await assert.rejects(waitFor("a short text", () => "x".repeat(600), (text) => text.length < 10, { timeoutMs: 5 }), /last seen: "x{499}… \(602 characters\)$/);
  await assert.rejects(waitFor("no error", () => new RangeError("out"), (value) => !(value instanceof Error), { timeoutMs: 5 }), /last seen: RangeError: out$/);
});

test("a read still pending at the deadline is not waited for; a read that throws ends the wait with its error", async () => {
  const started = Date.now();
  await assert.rejects(waitFor("a read that never answers", () => new Promise<never>(() => undefined), () => true, { timeoutMs: 20 }), /waiting for a read that never answers; last seen: nothing \(no read finished\)$/);
  assert.ok(Date.now() - started < 5_000);
  await assert.rejects(waitFor("a read that fails", () => Promise.reject(new Error("refused")), () => true), /^Error: refused$/);
});
