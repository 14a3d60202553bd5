/**
 * What is deployed is what was tested (issue 35, item 8): `npm run deploy -- --dry-run`,
 * run as a user runs it (wrangler offline), writes the very bytes the tests' workerd runs
 * (`startWorker` bundles with `bundleWorker()`), with the compatibility date and flags it
 * runs them with.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bundleWorker } from "../../scripts/lib/bundle.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from "../../scripts/lib/worker.ts";

test("npm run deploy -- --dry-run builds the bundle bytes, compatibility date and flags the tests' workerd runs", { timeout: 180_000 }, async () => {
  const run = spawnSync(process.execPath, [join(ROOT, "scripts/deploy.ts"), "--dry-run"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
  assert.equal(run.status, 0, `deploy --dry-run failed: ${run.stderr}`);
  const deployed = readFileSync(join(ROOT, "dist/deploy/worker.js"), "utf8");
  const tested = await bundleWorker();
  assert.ok(deployed === tested, `the deployed bundle (${deployed.length} bytes) differs from the one the tests run (${tested.length} bytes)`);
  const config = JSON.parse(readFileSync(join(ROOT, "dist/wrangler.json"), "utf8")) as { compatibility_date: string; compatibility_flags?: string[]; no_bundle?: boolean };
  assert.equal(config.compatibility_date, COMPATIBILITY_DATE);
  assert.deepEqual(config.compatibility_flags ?? [], [...COMPATIBILITY_FLAGS]);
  assert.equal(config.no_bundle, true, "wrangler uploads the bundle as built");
});
