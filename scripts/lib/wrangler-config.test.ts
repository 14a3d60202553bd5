import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "./controllers.ts";
import type { DeclaredBindings } from "./durable-objects.ts";
import { deployConfig, floorProblems, readWranglerConfig, WranglerConfig } from "./wrangler-config.ts";

/** A wrangler.jsonc that agrees with the floor's declarations. */
const BASE = WranglerConfig.parse({
  $schema: "node_modules/wrangler/config-schema.json",
  name: "edgeloop",
  main: "dist/worker.js",
  compatibility_date: "2026-07-01",
  durable_objects: {
    bindings: [
      { name: "LEDGER", class_name: "RecreationLedger" },
      { name: "OUTBOX", class_name: "Outbox" },
      { name: "REPLAY", class_name: "ReplayGuard" },
    ],
  },
  migrations: [
    { tag: "v1", new_sqlite_classes: ["RecreationLedger", "Outbox"] },
    { tag: "v2", new_sqlite_classes: ["ReplayGuard"] },
  ],
  observability: { enabled: true },
  vars: { EDGELOOP_API_ADDRESS: "relay:8080", QUEUE_SECONDS: "9" },
});

const FAMILY: DeclaredBindings = { file: "functions/controllers/queue/bindings.ts", durableObjects: [{ binding: "QUEUE", className: "Queue", migration: "2026-11-27-queue" }], vars: { QUEUE_SECONDS: "5", QUEUE_LIMIT: "10" } };

test("the deploy configuration is wrangler.jsonc plus the family's object, its migration after the floor's, and its variables under wrangler.jsonc's", () => {
  const config = deployConfig(BASE, [FAMILY], join(ROOT, "dist"));
  assert.deepEqual(config.durable_objects.bindings.map((b) => b.name), ["LEDGER", "OUTBOX", "REPLAY", "QUEUE"]);
  assert.deepEqual(config.migrations.map((m) => [m.tag, m.new_sqlite_classes]), [["v1", ["RecreationLedger", "Outbox"]], ["v2", ["ReplayGuard"]], ["2026-11-27-queue", ["Queue"]]]);
  assert.deepEqual(config.vars, { QUEUE_SECONDS: "9", QUEUE_LIMIT: "10", EDGELOOP_API_ADDRESS: "relay:8080" }, "wrangler.jsonc's value wins");
  assert.equal(config.main, "worker.js");
  assert.equal(config["name"], "edgeloop", "the other fields pass through");
  assert.deepEqual(config["observability"], { enabled: true });
  assert.equal("$schema" in config, false, "the schema path is relative to wrangler.jsonc: left out");
});

test("a wrangler.jsonc that disagrees with the floor's declarations is refused before anything is derived", () => {
  const without = WranglerConfig.parse({ ...BASE, durable_objects: { bindings: BASE.durable_objects.bindings.slice(0, 2) } });
  assert.throws(() => deployConfig(without, [FAMILY], ROOT), /wrangler.jsonc disagrees with durable\/table.ts: it binds LEDGER=RecreationLedger, OUTBOX=Outbox, durable\/table.ts declares/);
  const reordered = WranglerConfig.parse({ ...BASE, migrations: [...BASE.migrations].reverse() });
  assert.match(floorProblems(reordered).join(), /its migrations are v2:ReplayGuard, v1:Outbox\+RecreationLedger, durable\/table.ts's history is v1:/);
  const withFamily = WranglerConfig.parse({ ...BASE, migrations: [...BASE.migrations, { tag: "2026-11-27-queue", new_sqlite_classes: ["Queue"] }] });
  assert.equal(floorProblems(withFamily).length, 1, "a family's migration does not belong in wrangler.jsonc");
});

test("wrangler.jsonc is read with its comments; a broken one is refused naming the file", () => {
  assert.equal(readWranglerConfig().main, "dist/worker.js");
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-wrangler-"));
  try {
    const file = join(dir, "wrangler.jsonc");
    writeFileSync(file, '// a comment\n{ "main": "x.js", "compatibility_date": 7 }\n');
    assert.throws(() => readWranglerConfig(file), /wrangler\.jsonc: compatibility_date: /);
    writeFileSync(file, "{ main: }");
    assert.throws(() => readWranglerConfig(file), /wrangler\.jsonc: \w+ at offset/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
