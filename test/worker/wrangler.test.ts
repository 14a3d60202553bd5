/**
 * What Cloudflare deploys agrees with what the code declares (ADR 0022): `wrangler.jsonc`
 * binds the floor's Durable Objects (`durable/table.ts`) and names no controller family;
 * the configuration `npm run deploy` writes from it adds every family's declarations
 * (`bindings.ts`), with the whole migration history in order; the Worker bundle exports
 * exactly the declared classes; miniflare runs the same bindings.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { build } from "esbuild";
import { workerBuildOptions } from "../../scripts/lib/bundle.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import { allDurableObjects, loadFamilyBindings, migrationHistory, type DeclaredBindings } from "../../scripts/lib/durable-objects.ts";
import { COMPATIBILITY_DATE, miniflareDurableObjects } from "../../scripts/lib/worker.ts";
import { deployConfig, floorProblems, readWranglerConfig, WRANGLER_JSONC } from "../../scripts/lib/wrangler-config.ts";

let families: DeclaredBindings[];
before(async () => {
  families = await loadFamilyBindings();
});

const familyNames = readdirSync(join(ROOT, "functions/controllers"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

test("wrangler.jsonc binds exactly the floor's Durable Objects of durable/table.ts, with their migrations in order", () => {
  assert.deepEqual(floorProblems(readWranglerConfig()), []);
});

test("wrangler.jsonc names no controller family: no family folder, binding, class, migration or variable", () => {
  const text = readFileSync(WRANGLER_JSONC, "utf8");
  const named = [
    ...familyNames,
    ...families.flatMap((family) => [...family.durableObjects.flatMap((d) => [d.binding, d.className]), ...Object.keys(family.vars)]),
  ].filter((name) => new RegExp(`\\b${name}\\b`, "i").test(text));
  assert.deepEqual(named, []);
  const tags = new Set(readWranglerConfig().migrations.map((m) => m.tag));
  assert.deepEqual(families.flatMap((family) => family.durableObjects.filter((d) => tags.has(d.migration)).map((d) => d.className)), []);
});

test("the deploy configuration binds every declaration, applies the whole migration history in order, and carries the families' variables under wrangler.jsonc's", () => {
  const base = readWranglerConfig();
  const config = deployConfig(base, families, join(ROOT, "dist"));
  const declarations = allDurableObjects(families);
  assert.ok(families.some((family) => family.durableObjects.length > 0), "a family declares a Durable Object (the check below is not vacuous)");
  assert.deepEqual(config.durable_objects.bindings, declarations.map((d) => ({ name: d.binding, class_name: d.className })));
  assert.deepEqual(config.migrations, migrationHistory(declarations));
  // wrangler.jsonc's own migrations keep their order within the history (a subsequence of it).
  const order = config.migrations.map((m) => m.tag);
  const floorAt = base.migrations.map((m) => order.indexOf(m.tag));
  assert.ok(floorAt.every((at, i) => at >= 0 && (i === 0 || at > (floorAt[i - 1] ?? -1))), `floor tags ${base.migrations.map((m) => m.tag).join(", ")} in ${order.join(", ")}`);
  for (const family of families) for (const name of Object.keys(family.vars)) assert.equal(config.vars[name], base.vars[name] ?? family.vars[name], name);
  for (const [name, value] of Object.entries(base.vars)) assert.equal(config.vars[name], value, name);
  assert.equal(config.main, "worker.js", "main relative to dist/, where the deploy configuration is written");
});

test("the Worker bundle exports exactly the declared Durable Object classes", async () => {
  const result = await build({ ...workerBuildOptions(), metafile: true });
  const exported = Object.values(result.metafile.outputs).flatMap((output) => output.exports).filter((name) => name !== "default");
  assert.deepEqual(exported.sort(), allDurableObjects(families).map((d) => d.className).sort());
});

test("the local Worker runs with wrangler.jsonc's compatibility date and every declared Durable Object SQLite-backed", () => {
  assert.equal(readWranglerConfig().compatibility_date, COMPATIBILITY_DATE);
  const local = miniflareDurableObjects(families);
  assert.deepEqual(
    Object.entries(local).map(([binding, o]) => [binding, o.className, o.useSQLite]),
    allDurableObjects(families).map((d) => [d.binding, d.className, true]),
  );
});
