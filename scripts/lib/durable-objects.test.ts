import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { DurableObjectDeclaration } from "../../durable/declaration.ts";
import { FLOOR_DURABLE_OBJECTS } from "../../durable/table.ts";
import { compareTags, declarationProblems, familyVars, loadFamilyBindings, migrationHistory, type DeclaredBindings } from "./durable-objects.ts";

const declare = (binding: string, className: string, migration: string): DurableObjectDeclaration => ({ binding, className, migration });
const tags = (declarations: readonly DurableObjectDeclaration[]): string[] => migrationHistory(declarations).map((m) => m.tag);

/** The history as deployed before dated tags: the floor's v1 and v2, then a family's v3. */
const DEPLOYED = [...FLOOR_DURABLE_OBJECTS, declare("QUEUE", "Queue", "v3")];

test("the numbered tags come first in their order, then the dated ones by date, whatever order the declarations come in", () => {
  const dated = [declare("B", "B", "2027-01-05-b"), declare("A", "A", "2026-12-01-a"), declare("C", "C", "2026-12-01-c")];
  const expected = ["v1", "v2", "v3", "2026-12-01-a", "2026-12-01-c", "2027-01-05-b"];
  assert.deepEqual(tags([...dated, ...DEPLOYED]), expected);
  assert.deepEqual(tags([...[...DEPLOYED].reverse(), ...[...dated].reverse()]), expected);
  assert.ok(compareTags("v3", "2026-01-01-a") < 0 && compareTags("v1", "v2") < 0 && compareTags("2026-01-02-a", "2026-01-01-z") > 0);
});

test("a family added with a tag dated the day it is written appends to the history: nothing deployed moves", () => {
  const before = migrationHistory(DEPLOYED);
  const after = migrationHistory([declare("NEW", "NewThing", "2026-11-27-new-thing"), ...DEPLOYED]);
  assert.deepEqual(after.slice(0, before.length), before);
  assert.deepEqual(after.at(-1), { tag: "2026-11-27-new-thing", new_sqlite_classes: ["NewThing"] });
  assert.deepEqual(migrationHistory(DEPLOYED)[0], { tag: "v1", new_sqlite_classes: ["RecreationLedger", "Outbox"] }, "a tag of two classes stays one migration");
});

test("declarations that could not be deployed are refused, each problem named", () => {
  assert.deepEqual(declarationProblems(DEPLOYED), []);
  assert.deepEqual(declarationProblems([...DEPLOYED, declare("QUEUE", "Other", "2026-12-01-other")]), ["binding QUEUE is declared twice"]);
  assert.deepEqual(declarationProblems([...DEPLOYED, declare("OTHER", "Queue", "2026-12-01-other")]), ["class Queue is declared twice"]);
  assert.match(declarationProblems([...DEPLOYED, declare("NEXT", "Next", "v4")]).join(), /migration v4 \(Next\) is not dated/);
  assert.match(declarationProblems([...DEPLOYED, declare("NEXT", "Next", "2026-13-01-next")]).join(), /is not dated/, "a month that does not exist");
  assert.match(declarationProblems([...DEPLOYED, declare("NEXT", "Next", "2026-12-01_Next")]).join(), /is not dated/);
  assert.match(declarationProblems([...DEPLOYED, declare("NEXT", "Next", "v3")]).join(), /migration v3 was applied with 1 class\(es\) and cannot gain one/);
  assert.match(declarationProblems([...DEPLOYED, declare("A", "A", "2026-12-01-two"), declare("B", "B", "2026-12-01-two")]).join(), /creates several classes \(A, B\)/);
  assert.throws(() => migrationHistory([...DEPLOYED, declare("NEXT", "Next", "v4")]), /declarations disagree: migration v4/);
});

test("a family's variables are merged; one declared by two families is refused", () => {
  const family = (file: string, vars: Record<string, string>): DeclaredBindings => ({ file, durableObjects: [], vars });
  assert.deepEqual(familyVars([family("a/bindings.ts", { A_SECONDS: "1" }), family("b/bindings.ts", { B_SECONDS: "2" })]), { A_SECONDS: "1", B_SECONDS: "2" });
  assert.throws(() => familyVars([family("a/bindings.ts", { X: "1" }), family("b/bindings.ts", { X: "2" })]), /variable X is declared by both a\/bindings.ts and b\/bindings.ts/);
});

test("a bindings.ts whose default export is not a FamilyBindings is refused, naming the file and the field", async () => {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-bindings-"));
  try {
    const good = join(dir, "good.ts");
    const bad = join(dir, "bad.ts");
    writeFileSync(good, 'export default { durableObjects: [{ binding: "QUEUE", className: "Queue", migration: "2026-12-01-queue" }], vars: { QUEUE_SECONDS: "5" } };\n');
    writeFileSync(bad, 'export default { durableObjects: [{ binding: "queue", className: "Queue", migration: "2026-12-01-queue" }] };\n');
    const [loaded] = await loadFamilyBindings([good]);
    assert.deepEqual(loaded?.durableObjects, [{ binding: "QUEUE", className: "Queue", migration: "2026-12-01-queue" }]);
    assert.deepEqual(loaded?.vars, { QUEUE_SECONDS: "5" });
    await assert.rejects(loadFamilyBindings([bad]), /bad\.ts: the default export is not a FamilyBindings: durableObjects\.0\.binding: a binding is upper case/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
