import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FREE_PORTS, startNpmStart, stopNpmStart } from "../test/support/npm-start.ts";
import { waitFor } from "../cli/wait.ts";

const script = join(import.meta.dirname, "start.ts");

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "start-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A listener on a loopback port, as another program holding it. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { port: (server.address() as AddressInfo).port, server };
}

/** Runs the start script to its end (it fails before starting anything). */
function startFails(...args: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [script, ...args], { encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stderr: result.stderr };
}

test("a taken port is one line naming the flag to change, exit 1, no stack trace", async (t) => {
  const held = await holdPort();
  t.after(() => held.server.close());
  const state = folder(t);
  for (const flag of ["--port", "--worker-port", "--ops-port", "--api-port"]) {
    const ports = { "--port": "0", "--worker-port": "0", "--ops-port": "0", "--api-port": "0", [flag]: String(held.port) };
    const { status, stderr } = startFails(...Object.entries(ports).flat(), "--state", state);
    assert.equal(status, 1, stderr);
    assert.equal(stderr, `start: port ${held.port} is in use: pass ${flag} 0 or another port\n`);
  }
});


test("npm start twice: the second is refused on the taken port; the first keeps the cluster across a restart", { timeout: 120_000 }, async (t) => {
  const held = await holdPort();
  const port = held.port;
  await new Promise((resolve) => held.server.close(resolve)); // a port known to be free, for the first stack
  const state = folder(t);
  const first = await startNpmStart(["--port", String(port), "--worker-port", "0", "--ops-port", "0", "--api-port", "0", "--sedna-gm-port", "0", "--state", state]);
  t.after(() => void (first.child.exitCode === null && first.child.kill("SIGKILL")));
  assert.equal(first.ready.apiServer, `http://127.0.0.1:${port}`);

  const second = startFails("--port", String(port), "--worker-port", "0", "--ops-port", "0", "--api-port", "0", "--sedna-gm-port", "0", "--state", folder(t));
  assert.equal(second.status, 1);
  assert.equal(second.stderr, `start: port ${port} is in use: pass --port 0 or another port\n`);
  const sameState = startFails("--port", "0", "--worker-port", "0", "--ops-port", "0", "--api-port", "0", "--sedna-gm-port", "0", "--state", state);
  assert.equal(sameState.status, 1);
  assert.match(sameState.stderr, /^start: .* is in use by another npm start \(pid \d+\): stop it, or pass --state DIR to run a second one\n$/);

  const created = await fetch(`http://127.0.0.1:${port}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" }, data: { a: "1" } }) });
  const uid = ((await created.json()) as { metadata: { uid: string } }).metadata.uid;
  assert.equal(await stopNpmStart(first.child), 0, "Ctrl-C stops cleanly");
  assert.ok(existsSync(join(state, "cluster", "snapshot.jsonl")) && existsSync(join(state, "durable-objects")));
  assert.equal(readFileSync(join(state, "cluster", "log.jsonl"), "utf8"), "", "a clean stop leaves everything in the snapshot");

  const again = await startNpmStart([...FREE_PORTS, "--state", state]);
  t.after(() => void (again.child.exitCode === null && again.child.kill("SIGKILL")));
  assert.ok(again.lines.some((l) => /resuming the cluster saved in/.test(l)), again.lines.join("\n"));
  const back = (await (await fetch(`${String(again.ready.apiServer)}/api/v1/namespaces/default/configmaps/kept`)).json()) as { metadata: { uid: string } };
  assert.equal(back.metadata.uid, uid, "the same object, not a copy");
  assert.equal(await stopNpmStart(again.child), 0);
});

test("Ctrl-C (SIGINT to the terminal's whole process group) stops npm start cleanly: workerd is not in that group, so the relay stops before the Worker and says nothing", { timeout: 120_000 }, async (t) => {
  const { child, ready, lines } = await startNpmStart([...FREE_PORTS, "--state", folder(t)], { ownGroup: true });
  const group = child.pid ?? 0;
  t.after(() => void (child.exitCode === null && process.kill(-group, "SIGKILL")));
  const members = spawnSync("ps", ["-o", "pid=,comm=", "-g", String(group)], { encoding: "utf8" });
  assert.equal(members.status, 0, members.stderr);
  assert.deepEqual(members.stdout.trim().split("\n").map((l) => l.trim().split(/\s+/)[0]), [String(group)], `the terminal's group holds npm start's first process alone:\n${members.stdout}`);
  // The relay's ops port under npm start: /livez, and process metrics labelled as shared with the sim.
  assert.equal((await fetch(`${String(ready.relay)}/livez`)).status, 200);
  assert.match(await (await fetch(`${String(ready.relay)}/metrics`)).text(), /^process_cpu_seconds_total\{shared_with="sim"\} /m);
  // The outbox and channel feed long polls are in flight now (started when the relay led).
  const exited = once(child, "exit");
  process.kill(-group, "SIGINT");
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0);
  const loud = lines.filter((l) => /"level":"(warn|error)"/.test(l));
  assert.deepEqual(loud, [], "a clean Ctrl-C prints no warning");
});

test("npm start -- --link SPEC shapes the relay's link to the Worker; npm run link shows it and takes it down and up while the stack runs", { timeout: 120_000 }, async (t) => {
  const state = folder(t);
  const started = await startNpmStart([...FREE_PORTS, "--state", state, "--link", "rtt=20ms,jitter=2ms"]);
  t.after(() => void (started.child.exitCode === null && started.child.kill("SIGKILL")));
  assert.deepEqual(started.ready.link, { spec: "rtt=20ms,jitter=2ms", control: join(state, "link.sock") });
  const endpoints = JSON.parse(readFileSync(join(state, "endpoints.json"), "utf8")) as { link: { spec: string } };
  assert.equal(endpoints.link.spec, "rtt=20ms,jitter=2ms");
  const link = (...args: string[]): { status: number | null; out: Record<string, unknown>; stderr: string } => {
    const result = spawnSync(process.execPath, [join(import.meta.dirname, "link.ts"), "--state", state, ...args], { encoding: "utf8", timeout: 30_000 });
    return { status: result.status, out: result.stdout ? (JSON.parse(result.stdout) as Record<string, unknown>) : {}, stderr: result.stderr };
  };
  const shown = link();
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal(shown.out.up, true);
  assert.equal(shown.out.spec, "rtt=20ms,jitter=2ms");
  assert.ok(Number(shown.out.connections) > 0, "the relay reaches the Worker through it");
  const opsUrl = String(started.ready.relay);
  const workerUp = async (): Promise<string> => /^edgeloop_worker_up (\d)$/m.exec(await (await fetch(`${opsUrl}/metrics`)).text())?.[1] ?? "absent";
  assert.equal(link("down").out.up, false);
  await waitFor("edgeloop_worker_up 0", workerUp, (up) => up === "0", { timeoutMs: 30_000 });
  assert.equal(link("up").out.up, true);
  await waitFor("edgeloop_worker_up 1", workerUp, (up) => up === "1", { timeoutMs: 30_000 });
  const typo = link("rtt=20");
  assert.equal(typo.status, 2);
  assert.match(typo.stderr, /^link: link spec: rtt: "20" is not a duration with its unit/);
  assert.ok(started.lines.some((line) => line.includes("link down: the Worker is an unreachable host")), "npm start says the link went down");
  assert.equal(await stopNpmStart(started.child), 0);
  assert.equal(existsSync(join(state, "link.sock")), false, "the control socket goes with the stack");
});
