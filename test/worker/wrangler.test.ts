/**
 * wrangler.jsonc is what Cloudflare deploys; durable/table.ts is what the Worker's types,
 * miniflare and the controllers are derived from. They must say the same.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";
import { DURABLE_OBJECTS, migrations } from "../../durable/table.ts";
import { COMPATIBILITY_DATE, miniflareDurableObjects } from "../../scripts/lib/worker.ts";

interface WranglerConfig {
  readonly compatibility_date?: string;
  readonly durable_objects?: { readonly bindings?: readonly { readonly name: string; readonly class_name: string }[] };
  readonly migrations?: readonly { readonly tag: string; readonly new_sqlite_classes?: readonly string[] }[];
}

function readWrangler(): WranglerConfig {
  const errors: ParseError[] = [];
  const config = parse(readFileSync(join(import.meta.dirname, "../../wrangler.jsonc"), "utf8"), errors, { allowTrailingComma: true }) as WranglerConfig;
  assert.deepEqual(errors.map((e) => printParseErrorCode(e.error)), [], "wrangler.jsonc parses");
  return config;
}

test("wrangler.jsonc binds exactly the Durable Objects of durable/table.ts, with the same migrations", () => {
  const config = readWrangler();
  const declared = Object.entries(DURABLE_OBJECTS).map(([name, d]) => ({ name, class_name: d.className }));
  const bound = (config.durable_objects?.bindings ?? []).map((b) => ({ name: b.name, class_name: b.class_name }));
  assert.deepEqual(bound.sort((a, b) => a.name.localeCompare(b.name)), declared.sort((a, b) => a.name.localeCompare(b.name)));
  assert.deepEqual(
    (config.migrations ?? []).map((m) => ({ tag: m.tag, new_sqlite_classes: [...(m.new_sqlite_classes ?? [])].sort() })),
    migrations().map((m) => ({ tag: m.tag, new_sqlite_classes: [...m.new_sqlite_classes].sort() })),
  );
});

test("the local Worker runs with wrangler.jsonc's compatibility date and every table entry SQLite-backed", () => {
  assert.equal(readWrangler().compatibility_date, COMPATIBILITY_DATE);
  assert.deepEqual(Object.keys(miniflareDurableObjects()).sort(), Object.keys(DURABLE_OBJECTS).sort());
  assert.ok(Object.values(miniflareDurableObjects()).every((o) => o.useSQLite));
});
