import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGoDuration, tolerationSecondsOf } from "./duration.ts";

test("Go durations parse as time.ParseDuration reads them", () => {
  const ms = (text: string): number | string => {
    const parsed = parseGoDuration(text);
    return parsed.ok ? parsed.ms : "error";
  };
  assert.equal(ms("10m"), 600_000);
  assert.equal(ms("1h30m"), 5_400_000);
  assert.equal(ms("1.5h"), 5_400_000);
  assert.equal(ms("500ms"), 500);
  assert.equal(ms("2h45m30.5s"), 9_930_500);
  assert.equal(ms("0"), 0);
  assert.equal(ms("0s"), 0);
  assert.equal(ms("+20s"), 20_000);
  assert.equal(ms(".5s"), 500);
  assert.equal(ms("1µs"), 0.001);
  for (const bad of ["", "10", "ten minutes", "10 m", "10d", "-1s", "1h-5m", "m", "1.2.3s", "x".repeat(100)]) assert.equal(ms(bad), "error", bad);
});

test("errors say what a valid duration looks like", () => {
  const parsed = parseGoDuration("10d");
  assert.equal(parsed.ok, false);
  assert.equal(!parsed.ok && parsed.error, '"10d" is not a duration; expected a Go duration such as "30s", "10m", "1h30m" or "0" (never evict)');
});

test("toleration seconds: whole seconds rounded up (sub-second is 1, not 0), and none for 0 (forever)", () => {
  assert.equal(tolerationSecondsOf(500), 1, "upstream made 500ms 0: evicted at once");
  assert.equal(tolerationSecondsOf(1), 1);
  assert.equal(tolerationSecondsOf(100_000), 100);
  assert.equal(tolerationSecondsOf(100_001), 101);
  assert.equal(tolerationSecondsOf(0), undefined);
});
