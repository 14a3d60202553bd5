import assert from "node:assert/strict";
import { test } from "node:test";
import { allSurvived, formatTable, ledgerLine, summaryLine, type ChaosRow } from "./table.ts";

const row = (fault: string, extra: Partial<ChaosRow> = {}): ChaosRow => ({ fault, injectedAtS: 0.3, expected: "36 children", happened: "36 once each", lost: 0, duplicated: 0, convergeS: 1.25, survived: true, seen: { created: 4, replies: 0, lost: 0, duplicated: 0 }, ...extra });

test("the summary line counts faults, survivors, lost and duplicated objects", () => {
  const rows = [row("relay SIGKILL"), row("worker down 30 s", { lost: 2, duplicated: 1, convergeS: undefined, survived: false })];
  assert.equal(summaryLine(rows), "faults: 2 injected, 1 survived, lost: 2, duplicated: 1");
  assert.equal(allSurvived(rows), false);
  assert.equal(allSurvived([rows[0] as ChaosRow]), true);
  assert.equal(allSurvived([]), false, "no fault injected is no proof");
});

test("the table pads its columns and says when a row never converged", () => {
  const text = formatTable([row("a"), row("longer fault", { convergeS: undefined, survived: false })]);
  const lines = text.split("\n");
  assert.equal(lines.length, 3);
  assert.match(lines[0] ?? "", /^fault\s+injected at\s+expected\s+happened\s+lost\s+duplicated\s+converged in$/);
  assert.match(lines[1] ?? "", /^ok {3}a\s+0\.3 s\s+36 children\s+36 once each\s+0\s+0\s+1\.3 s$/);
  assert.match(lines[2] ?? "", /^FAIL longer fault .* never$/);
  assert.equal(lines[1]?.indexOf("0.3 s"), lines[2]?.indexOf("0.3 s"), "columns line up");
});

test("the continuous count's line sums what each row saw meanwhile", () => {
  const rows = [row("a", { seen: { created: 9, replies: 1, lost: 5, duplicated: 0 } }), row("b", { seen: { created: 3, replies: 2, lost: 0, duplicated: 32 } })];
  assert.equal(ledgerLine(rows, { created: 400, replies: 3 }), "counted continuously: 400 objects created, 3 API replies checked, lost: 5, duplicated: 32");
});
