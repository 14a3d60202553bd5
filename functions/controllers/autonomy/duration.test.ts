import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { MAX_TOLERATION_SECONDS, parseGoDuration, tolerationSecondsOf } from "./duration.ts";

/**
 * The table go-duration/main.go printed: Go 1.26's time.ParseDuration on each input of
 * go-duration/inputs.json. That it is still what Go answers is checked where Go is
 * required, in npm run test:cluster (test/cluster/go-duration.test.ts).
 */
const GoTable = z.array(z.object({ input: z.string(), nanoseconds: z.string().regex(/^-?\d+$/).nullable(), error: z.string().nullable() }));
const HERE = import.meta.dirname;
const table = GoTable.parse(JSON.parse(readFileSync(join(HERE, "go-duration/table.json"), "utf8")));

test("every input of the table parses as Go's time.ParseDuration parses it (value, or Go's own error text)", () => {
  assert.ok(table.length > 100, "the table is there");
  for (const row of table) {
    const parsed = parseGoDuration(row.input);
    const label = JSON.stringify(row.input);
    if (row.error !== null) {
      assert.equal(parsed.ok, false, `${label}: Go refuses it (${row.error})`);
      assert.equal(!parsed.ok && parsed.goError, row.error, `${label}: Go's error text`);
    } else if (row.nanoseconds?.startsWith("-") === true) {
      assert.equal(parsed.ok, false, `${label}: Go reads ${row.nanoseconds}ns, negative: refused here`);
      assert.match(!parsed.ok ? parsed.error : "", /is negative/, label);
    } else {
      assert.equal(parsed.ok && parsed.nanoseconds, BigInt(row.nanoseconds ?? "x"), `${label}: Go reads ${row.nanoseconds}ns`);
    }
  }
});

test("values Go refuses for overflow are refused as out of range, naming Go's largest duration", () => {
  for (const value of ["9999999h", "99999999999999999999h", "2562048h", "2562047h47m16.854775808s"]) {
    const parsed = parseGoDuration(value);
    assert.equal(parsed.ok, false, value);
    assert.match(!parsed.ok ? parsed.error : "", /out of range.*2562047h47m16\.854775807s/, value);
  }
});

test("errors say why, the way Go says it, and what a valid duration looks like", () => {
  const parsed = parseGoDuration("10d");
  assert.equal(parsed.ok, false);
  assert.equal(!parsed.ok && parsed.error, '"10d" is not a duration (unknown unit "d"); expected a Go duration such as "30s", "10m", "1h30m" or "0" (never evict)');
  const long = parseGoDuration(`1${"x".repeat(10_000)}`);
  assert.ok(!long.ok && long.error.length < 300, "a long value is cut in the message");
});

test("toleration seconds: whole seconds rounded up (sub-second is 1, not 0), none for 0 (forever), always within int64", () => {
  assert.equal(tolerationSecondsOf(500_000_000n), 1, "upstream made 500ms 0: evicted at once");
  assert.equal(tolerationSecondsOf(1n), 1);
  assert.equal(tolerationSecondsOf(100_000_000_000n), 100);
  assert.equal(tolerationSecondsOf(100_000_000_001n), 101);
  assert.equal(tolerationSecondsOf(0n), undefined);
  const largest = parseGoDuration("2562047h47m16.854775807s");
  assert.ok(largest.ok);
  const seconds = tolerationSecondsOf(largest.nanoseconds);
  assert.equal(seconds, 9_223_372_037);
  assert.ok(seconds !== undefined && Number.isSafeInteger(seconds) && BigInt(seconds) <= MAX_TOLERATION_SECONDS, "fits the API's int64 and a JSON number read exactly");
});
