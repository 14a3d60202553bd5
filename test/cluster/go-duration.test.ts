/**
 * The autonomy-duration table (functions/controllers/autonomy/go-duration/table.json),
 * which `npm test` checks the TypeScript parser against, is still what Go answers: its
 * program run by the Go toolchain `npm run test:cluster` requires (a missing Go fails that
 * run before any suite), on the committed inputs, with no module and no network.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const FOLDER = join(import.meta.dirname, "../../functions/controllers/autonomy/go-duration");

test("go run go-duration/main.go on its inputs prints the committed table: Go 1.26's time.ParseDuration, value or error, per input", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-go-duration-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "main.go"), readFileSync(join(FOLDER, "main.go")));
  const inputs = readFileSync(join(FOLDER, "inputs.json"), "utf8");
  const answer = execFileSync("go", ["run", "main.go"], { cwd: dir, input: inputs, encoding: "utf8", env: { ...process.env, GO111MODULE: "off", GOFLAGS: "", GOTOOLCHAIN: "local" }, timeout: 120_000 });
  const table = JSON.parse(readFileSync(join(FOLDER, "table.json"), "utf8")) as unknown[];
  assert.ok(table.length > 100, "the table is there");
  assert.deepEqual(JSON.parse(answer), table);
});
