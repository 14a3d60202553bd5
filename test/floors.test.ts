/**
 * The floors name no controller family (ADR 0022): `protocol/`, `durable/`, the Worker
 * outside `functions/controllers/`, `relay/` and `wrangler.jsonc` serve every family the
 * same, so adding or removing one touches only its folder. Production files only, comments
 * included (an example names a kind, not a family); tests and test support may use a
 * family's objects as data. A family is looked for by its folder's name at the start of a
 * word (`gang` finds `GangQueue`), so a family is best named for what it is (`sedna`),
 * not after a word the floors use in another sense (`queue`).
 */
import assert from "node:assert/strict";
import { globSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../scripts/lib/controllers.ts";

const FAMILIES = readdirSync(join(ROOT, "functions/controllers"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The floors' production files, from the root. */
function floorFiles(): string[] {
  const sources = ["protocol", "durable", "functions", "relay"].flatMap((top) => globSync(`${top}/**/*.ts`, { cwd: ROOT }));
  return [
    ...sources.filter((file) => !file.startsWith("functions/controllers/") && !file.endsWith(".test.ts") && !file.includes("/testing/")),
    "wrangler.jsonc",
  ].sort();
}

test("no floor file names a controller family", () => {
  assert.ok(FAMILIES.length > 0 && floorFiles().length > 50, "the families and the floors are found");
  const naming = new RegExp(`\\b(${FAMILIES.join("|")})`, "i");
  const named = floorFiles().flatMap((file) =>
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .flatMap((line, i) => (naming.test(line) ? [`${file}:${String(i + 1)}: ${line.trim()}`] : [])),
  );
  assert.deepEqual(named, []);
});
