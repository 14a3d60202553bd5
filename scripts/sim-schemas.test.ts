import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { OUTPUT, ROOTS } from "./sim-schemas.ts";

const script = join(import.meta.dirname, "sim-schemas.ts");

test("sim/schema/builtin.json is what the generator makes from @kubernetes/client-node", () => {
  const result = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
});

test("every kind the generator knows has its schema, tagged with its GVK", () => {
  const doc = JSON.parse(readFileSync(OUTPUT, "utf8")) as { kinds: Record<string, string>; schemas: Record<string, { "x-kubernetes-group-version-kind"?: unknown }> };
  for (const root of ROOTS) {
    const name = doc.kinds[`${root.group}/${root.version}/${root.kind}`];
    assert.ok(name, root.kind);
    assert.deepEqual(doc.schemas[name]?.["x-kubernetes-group-version-kind"], [{ group: root.group, kind: root.kind, version: root.version }]);
  }
});
