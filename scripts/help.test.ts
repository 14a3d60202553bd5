import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, globSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const ROOT = resolve(import.meta.dirname, "..");

/** Every npm script that runs a file of this repository with node: its name and file. */
function entryPoints(): { script: string; file: string }[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  return Object.entries(scripts).flatMap(([script, command]) => {
    const file = /^node (\S+\.ts)$/.exec(command)?.[1];
    return file ? [{ script, file }] : [];
  });
}

test("every npm script that runs a file, and every script in scripts/, answers --help with its usage and names every flag it takes", () => {
  const entries = entryPoints();
  const files = entries.map((e) => e.file);
  assert.ok(["relay/main.ts", "sim/main.ts", "scripts/start.ts", "scripts/bench.ts", "scripts/install-relay.ts"].every((f) => files.includes(f)));
  const others = globSync("scripts/*.ts", { cwd: ROOT }).filter((f) => !f.endsWith(".test.ts") && !files.includes(f));
  for (const { script, file } of [...entries, ...others.map((file) => ({ script: file, file }))]) {
    // cli() exits 1 and names the flag when a flag is missing from the help (cli/args.ts).
    const result = spawnSync(process.execPath, [join(ROOT, file), "--help"], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    assert.equal(result.stderr, "", `${script}: ${result.stderr}`);
    assert.equal(result.status, 0, script);
    assert.match(result.stdout, /^usage: /, script);
  }
});

test("npm run bench -- --help lists its parts", () => {
  const result = spawnSync(process.execPath, [join(ROOT, "scripts/bench.ts"), "--help"], { cwd: ROOT, encoding: "utf8" });
  for (const part of ["sim", "relay", "sedna"]) assert.match(result.stdout, new RegExp(`^  ${part} `, "m"), part);
});

test("nothing a user reads points outside the clone", () => {
  const docs = ["README.md", ...globSync("docs/**/*.md", { cwd: ROOT })];
  for (const file of [...docs, ...globSync("scripts/**/*.ts", { cwd: ROOT })]) {
    assert.doesNotMatch(readFileSync(join(ROOT, file), "utf8"), /\.\.\/shared\b/, file);
  }
  for (const file of docs) {
    for (const [, target = ""] of readFileSync(join(ROOT, file), "utf8").matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // a URL
      const path = resolve(ROOT, dirname(file), target);
      assert.ok(!relative(ROOT, path).startsWith(".."), `${file} links outside the clone: ${target}`);
      assert.ok(existsSync(path), `${file} links to a missing file: ${target}`);
    }
  }
});
