import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { clockOffset } from "./clock-offset.ts";

const run = promisify(execFile);
const PRELOAD = join(import.meta.dirname, "clock-preload.ts");
// Prints Date.now() − real time (from the monotonic clock's origin) and new Date()'s, in whole minutes, then the same after SIGUSR2.
const PROBE = `
globalThis.early = new (Object.getPrototypeOf(Date))();
const real = () => performance.timeOrigin + performance.now();
const minutes = (ms) => Math.round(ms / 60000);
const look = () => [minutes(Date.now() - real()), minutes(new Date().getTime() - real()), new Date(0).getTime(), typeof Date(), new Date() instanceof Date, globalThis.early instanceof Date];
const before = look();
const alive = setTimeout(() => undefined, 10000);
process.once("SIGUSR2", () => setImmediate(() => { console.log(JSON.stringify([before, look()])); clearTimeout(alive); }));
require("node:fs").writeFileSync(process.env.EDGELOOP_CHAOS_CLOCK_FILE, process.env.NEXT);
process.kill(process.pid, "SIGUSR2");
`;

test("the offset file: whole milliseconds within ±10 days, anything else 0", () => {
  assert.equal(clockOffset("-120000\n"), -120_000);
  assert.equal(clockOffset("120000"), 120_000);
  assert.equal(clockOffset("1e9"), 0);
  assert.equal(clockOffset(""), 0);
  assert.equal(clockOffset(String(11 * 86_400_000)), 0);
});

test("the preload steps Date.now() and new Date() by the file's offset, again on SIGUSR2; explicit dates untouched", async () => {
  const dir = mkdtempSync(join(tmpdir(), "clock-"));
  try {
    const file = join(dir, "offset");
    writeFileSync(file, "-120000");
    const { stdout } = await run(process.execPath, ["--import", PRELOAD, "-e", PROBE], { env: { ...process.env, EDGELOOP_CHAOS_CLOCK_FILE: file, NEXT: "180000" } });
    assert.deepEqual(JSON.parse(stdout), [
      [-2, -2, 0, "string", true, true],
      [3, 3, 0, "string", true, true],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
