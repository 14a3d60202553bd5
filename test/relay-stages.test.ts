/**
 * The relay's stages import forward only as relay/README.md says: a stage may use an
 * earlier stage's code, but of a later stage only its types (the interface it calls)
 * and the typed queue key the router and the events delivery make; `apply/` imports
 * nothing of `route/` (the echo record reaches the applier as a listener). Checked on
 * the import lines of every production file, so a back edge fails here, not in review.
 */
import assert from "node:assert/strict";
import { globSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../scripts/lib/controllers.ts";

/** The loop's stages, in the order a watch event travels. */
const STAGES = ["watch", "store", "route", "queue", "deliver", "apply"] as const;

/** What a later stage may be imported for at run time: the typed key of a queued parent. */
const SHARED_VALUES = new Set(["queue/key.ts"]);

/** Every import of another relay stage in `file`: the stage and file imported, and whether it is type-only. */
function stageImports(file: string): { stage: string; target: string; typeOnly: boolean }[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found = [];
  for (const match of text.matchAll(/^import (type )?[^;]*? from "\.\.\/([a-z-]+)\/([^"]+)";/gms)) {
    found.push({ stage: match[2] ?? "", target: `${match[2] ?? ""}/${match[3] ?? ""}`, typeOnly: match[1] !== undefined });
  }
  return found;
}

test("a relay stage imports of a later stage only types (and the queue key); apply/ nothing of route/", () => {
  const problems: string[] = [];
  for (const [index, stage] of STAGES.entries()) {
    const files = globSync(`relay/${stage}/*.ts`, { cwd: ROOT }).filter((f) => !f.endsWith(".test.ts"));
    assert.ok(files.length > 0, `relay/${stage}/ has files`);
    for (const file of files) {
      for (const imported of stageImports(file)) {
        const at = STAGES.indexOf(imported.stage as (typeof STAGES)[number]);
        if (at < 0) continue;
        if (stage === "apply" && imported.stage === "route") problems.push(`${file} imports ${imported.target}: apply/ must not know route/`);
        if (at > index && !imported.typeOnly && !SHARED_VALUES.has(imported.target)) problems.push(`${file} imports code of the later stage ${imported.target}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test("the check reads import lines: a value import of a later stage is seen", () => {
  const probe = stageImports("relay/route/router.ts");
  assert.ok(probe.some((i) => i.target === "queue/key.ts" && !i.typeOnly), "router's queue-key import is read as a value import");
  assert.ok(probe.some((i) => i.target === "queue/workqueue.ts" && i.typeOnly), "router's KeySink import is read as type-only");
});
