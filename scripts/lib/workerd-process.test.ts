import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { alive, DurableStateBusyError, isWorkerd, stopOrphanWorkerd } from "./workerd-process.ts";
import { startWorker } from "./worker.ts";

const SECRET = "workerd-process-test-secret";

/** A Node process that runs a Worker on `persistDir` and says its workerd's pid. */
async function ownerOfAWorker(persistDir: string): Promise<{ owner: number; workerd: number; url: string }> {
  const code = `
    import { startWorker } from ${JSON.stringify(join(import.meta.dirname, "worker.ts"))};
    import { workerdChildren } from ${JSON.stringify(join(import.meta.dirname, "workerd-process.ts"))};
    const worker = await startWorker({ secret: ${JSON.stringify(SECRET)}, persistDir: ${JSON.stringify(persistDir)} });
    console.log(JSON.stringify({ url: worker.url, workerd: workerdChildren()[0] }));
    setInterval(() => undefined, 60_000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (status) => reject(new Error(`the owner exited (${status}) before its Worker ran`)));
  });
  const said = JSON.parse(line) as { url: string; workerd: number };
  return { owner: child.pid ?? 0, ...said };
}

test("kill -9 of the process that runs workerd: workerd dies with it, its port and Durable Object files freed (issue 28, finding 7b)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-workerd-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { owner, workerd, url } = await ownerOfAWorker(join(dir, "durable-objects"));
  t.after(() => {
    if (isWorkerd(workerd)) process.kill(workerd, "SIGKILL");
  });
  assert.ok(isWorkerd(workerd), `workerd pid ${workerd}`);
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
  process.kill(owner, "SIGKILL");
  await waitFor(`workerd ${workerd} gone after its owner ${owner} was killed`, () => isWorkerd(workerd), (running) => !running, { timeoutMs: 5_000 });
  // The next start on the same state folder runs, alone.
  const next = await startWorker({ secret: SECRET, persistDir: join(dir, "durable-objects") });
  t.after(() => next.stop());
  assert.equal(next.stoppedOrphan, undefined, "nothing was left to stop");
});

test("a second Worker on the same Durable Object state folder is refused, naming the process that holds it (issue 28, finding 7b)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-workerd-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = await startWorker({ secret: SECRET, persistDir: join(dir, "durable-objects") });
  t.after(() => first.stop());
  await assert.rejects(startWorker({ secret: SECRET, persistDir: join(dir, "durable-objects") }), (error: unknown) => error instanceof DurableStateBusyError && error.owner === process.pid && error.message.includes(`process ${process.pid}`));
  await first.stop();
  const again = await startWorker({ secret: SECRET, persistDir: join(dir, "durable-objects") });
  await again.stop();
  assert.ok(alive(process.pid));
});

/** The watchdog `sh` of workerd `pid` (its last argument), if any. */
function watchdogOf(pid: number): number | undefined {
  const found = readdirSync("/proc").find((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      return argv[0] === "sh" && argv.at(-2) === String(pid);
    } catch {
      return false;
    }
  });
  return found === undefined ? undefined : Number(found);
}

test("a workerd orphaned on the state folder (its owner and watchdog killed, as before this fix) is stopped by the next start, which then runs (issue 28, finding 7b)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-workerd-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { owner, workerd } = await ownerOfAWorker(join(dir, "durable-objects"));
  t.after(() => {
    if (isWorkerd(workerd)) process.kill(workerd, "SIGKILL");
  });
  const watchdog = watchdogOf(workerd);
  assert.ok(watchdog, "the owner watches its workerd");
  process.kill(watchdog, "SIGKILL");
  process.kill(owner, "SIGKILL");
  await waitFor(`owner ${owner} gone`, () => alive(owner), (lives) => !lives, { timeoutMs: 5_000 });
  assert.ok(isWorkerd(workerd), "orphaned: still running on the state folder");
  assert.equal(await stopOrphanWorkerd(join(dir, "durable-objects")), workerd);
  assert.equal(isWorkerd(workerd), false);
  const next = await startWorker({ secret: SECRET, persistDir: join(dir, "durable-objects") });
  await next.stop();
});
