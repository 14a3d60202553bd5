import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { waitFor } from "./wait.ts";

/** An entry point that runs itself in its own group, says its pid, and stops on SIGINT/SIGTERM saying so. */
function entryPoint(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "process-group-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "entry.ts");
  writeFileSync(
    file,
    [
      `import { runInOwnProcessGroup } from ${JSON.stringify(join(import.meta.dirname, "process-group.ts"))};`,
      "await runInOwnProcessGroup(process.env);",
      "const keep = setInterval(() => undefined, 1000);",
      `for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => { console.log("stopped " + s); clearInterval(keep); process.exitCode = 0; });`,
      "console.log(String(process.pid));",
    ].join("\n"),
  );
  return file;
}

/** Starts the entry point in a group of its own (a terminal's foreground job); resolves with the copy's pid and its output lines. */
async function start(file: string): Promise<{ first: ChildProcess; copy: number; lines: string[] }> {
  const first = spawn(process.execPath, [file], { stdio: ["ignore", "pipe", "inherit"], detached: true });
  const lines: string[] = [];
  const input = createInterface({ input: first.stdout! });
  input.on("line", (line) => lines.push(line));
  const copy = await waitFor("the copy's pid", () => Number(lines[0]), (pid) => pid > 0, { timeoutMs: 30_000, intervalMs: 20 });
  return { first, copy, lines };
}

const groupOf = (pid: number): number => Number(spawnSync("ps", ["-o", "pgid=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim());
const alive = (pid: number): boolean => spawnSync("ps", ["-p", String(pid)]).status === 0;

test("the copy runs in a group of its own; a Ctrl-C to the terminal's group reaches it once, through the first process, whose status is the copy's", async (t) => {
  const { first, copy, lines } = await start(entryPoint(t));
  t.after(() => void (alive(copy) && process.kill(copy, "SIGKILL")));
  assert.notEqual(copy, first.pid);
  assert.equal(groupOf(first.pid ?? 0), first.pid, "the first process leads the terminal's group");
  assert.equal(groupOf(copy), copy, "the copy leads a group of its own");
  const exited = once(first, "exit");
  process.kill(-(first.pid ?? 0), "SIGINT");
  assert.deepEqual(await exited, [0, null]);
  assert.deepEqual(lines.slice(1), ["stopped SIGINT"]);
});

test("the copy stops itself (SIGTERM) when the first process is killed outright", async (t) => {
  const { first, copy, lines } = await start(entryPoint(t));
  t.after(() => void (alive(copy) && process.kill(copy, "SIGKILL")));
  first.kill("SIGKILL");
  await waitFor("the copy to stop", () => alive(copy), (up) => !up, { timeoutMs: 10_000, intervalMs: 50 });
  assert.deepEqual(lines.slice(1), ["stopped SIGTERM"]);
});
