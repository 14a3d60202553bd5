import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test, type TestContext } from "node:test";
import type { GangList } from "../functions/controllers/gang/api/schema.ts";
import { SIM_TOKEN, kubeconfigYaml } from "../sim/kubeconfig.ts";

const script = join(import.meta.dirname, "gangs.ts");

const LIST: GangList = {
  now: "2026-03-01T12:00:00.000Z",
  items: [
    {
      namespace: "default",
      group: "infer",
      state: "reserved",
      present: 2,
      size: 2,
      position: 1,
      reservedStart: "2026-03-01T12:00:42.000Z",
      nodes: ["node-1", "node-2"],
      deadline: null,
      waitingFor: "running pods on node-1 to finish",
      reason: { kind: "delays-reservation", resource: "cpu", short: 500, pods: 2, nodes: 1, text: "running pods on node-1 to finish" },
    },
    {
      namespace: "ml",
      group: "train",
      state: "pending",
      present: 4,
      size: 4,
      position: 2,
      reservedStart: null,
      nodes: [],
      deadline: "2026-03-01T12:00:55.000Z",
      waitingFor: "nvidia.com/gpu: 2 short on 3 nodes",
      reason: { kind: "resources", resource: "nvidia.com/gpu", short: 2, pods: 4, nodes: 3, text: "nvidia.com/gpu: 2 short on 3 nodes" },
    },
  ],
};

interface Api {
  readonly url: string;
  /** The request targets received (path and query). */
  readonly targets: string[];
}

/** A stand-in for the relay's API port on 127.0.0.1: `answer` writes every response. */
async function serve(t: TestContext, answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<Api> {
  const targets: string[] = [];
  const server = createServer((request, response) => {
    targets.push(request.url ?? "");
    answer(request, response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets };
}

function json(status: number, body: unknown): (request: IncomingMessage, response: ServerResponse) => void {
  return (_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  };
}

/** A canned gang list, filtered by `?namespace=` as the scheduler does. */
function gangs(request: IncomingMessage, response: ServerResponse): void {
  const namespace = new URL(request.url ?? "/", "http://x").searchParams.get("namespace");
  json(200, { ...LIST, items: LIST.items.filter((row) => namespace === null || row.namespace === namespace) })(request, response);
}

/** Runs the script to its end, without blocking this process's event loop (the server answers it). */
async function run(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [status] = (await once(child, "close")) as [number | null];
  return { status, stdout, stderr };
}

function folder(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "gangs-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("prints the queue as a table, from --url", async (t) => {
  const api = await serve(t, gangs);
  const result = await run("--url", api.url);
  assert.equal(result.stderr, "");
  assert.equal(result.status, 0);
  assert.equal(
    result.stdout,
    [
      "NAMESPACE  GROUP  STATE     PODS  POSITION  ETA     NODES              DEADLINE  WAITING-FOR",
      "default    infer  reserved  2/2   1         in 42s  2 (node-1,node-2)  -         running pods on node-1 to finish",
      "ml         train  pending   4/4   2         -       -                  in 55s    nvidia.com/gpu: 2 short on 3 nodes",
      "",
    ].join("\n"),
  );
  assert.deepEqual(api.targets, ["/v1/gangs"]);
});

test("-o json prints the rows as a JSON array; --namespace is sent as the query", async (t) => {
  const api = await serve(t, gangs);
  const all = await run("-o", "json", "--url", `${api.url}/`);
  assert.equal(all.status, 0, all.stderr);
  assert.deepEqual(JSON.parse(all.stdout), LIST.items);

  const ml = await run("--output", "json", "-n", "ml", "--url", api.url);
  assert.equal(ml.status, 0, ml.stderr);
  assert.deepEqual(JSON.parse(ml.stdout), [LIST.items[1]]);
  const table = await run("--namespace", "ml", "--url", api.url);
  assert.match(table.stdout, /^ml +train +pending/m);
  assert.doesNotMatch(table.stdout, /infer/);
  assert.deepEqual(api.targets, ["/v1/gangs", "/v1/gangs?namespace=ml", "/v1/gangs?namespace=ml"]);
});

test("fields the rows do not declare are not printed by -o json", async (t) => {
  const api = await serve(t, json(200, { ...LIST, extra: 1, items: LIST.items.map((row) => ({ ...row, internal: "x" })) }));
  const result = await run("-o", "json", "--url", api.url);
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), LIST.items);
});

test("no groups: No gangs found. on stderr, exit 0; -o json prints []", async (t) => {
  const api = await serve(t, json(200, { now: LIST.now, items: [] }));
  assert.deepEqual(await run("--url", api.url), { status: 0, stdout: "", stderr: "No gangs found.\n" });
  assert.deepEqual(await run("-n", "ml", "--url", api.url), { status: 0, stdout: "", stderr: "No gangs found in ml namespace.\n" });
  assert.deepEqual(await run("-o", "json", "--url", api.url), { status: 0, stdout: "[]\n", stderr: "" });
});

test("the address comes from endpoints.json in --state", async (t) => {
  const api = await serve(t, gangs);
  const state = folder(t);
  writeFileSync(join(state, "endpoints.json"), JSON.stringify({ apiServer: "http://127.0.0.1:1", apis: { replicas: api.url, gangs: api.url } }));
  const result = await run("--state", state);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^default +infer +reserved/m);
});

test("the token sent: --token, else that of the kubeconfig npm start wrote; a 401 says to pass one", async (t) => {
  const seen: (string | undefined)[] = [];
  const api = await serve(t, (request, response) => {
    seen.push(request.headers.authorization);
    gangs(request, response);
  });
  const state = folder(t);
  const kubeconfig = join(state, "kubeconfig");
  writeFileSync(kubeconfig, kubeconfigYaml("http://127.0.0.1:1"));
  writeFileSync(join(state, "endpoints.json"), JSON.stringify({ kubeconfig, apis: { gangs: api.url } }));
  assert.equal((await run("--state", state)).status, 0);
  assert.equal((await run("--state", state, "--token", "given")).status, 0);
  assert.equal((await run("--url", api.url)).status, 0);
  assert.deepEqual(seen, [`Bearer ${SIM_TOKEN}`, "Bearer given", undefined]);
  const refused = await serve(t, json(401, { error: { code: "unauthorized", message: "the API server does not authenticate this bearer token", path: "headers.authorization" } }));
  const answer = await run("--url", refused.url);
  assert.equal(answer.stderr, `gangs: ${refused.url}/v1/gangs answered 401: the API server does not authenticate this bearer token (pass --token TOKEN, a token whose user may list pods: kubectl create token <serviceaccount>)\n`);
});

test("an error answer is its message on one line, exit 1", async (t) => {
  const api = await serve(t, json(500, { error: { code: "internal", message: "the gang queue is not reachable", path: "" } }));
  assert.deepEqual(await run("--url", api.url), { status: 1, stdout: "", stderr: `gangs: ${api.url}/v1/gangs answered 500: the gang queue is not reachable\n` });
  const plain = await serve(t, (_request, response) => {
    response.writeHead(502, { "content-type": "text/plain" });
    response.end("Bad Gateway\n");
  });
  assert.deepEqual(await run("--url", plain.url), { status: 1, stdout: "", stderr: `gangs: ${plain.url}/v1/gangs answered 502: Bad Gateway\n` });
});

test("a body that is not a gang list is said so, exit 1", async (t) => {
  const api = await serve(t, json(200, { now: LIST.now, items: [{ group: "x" }] }));
  const result = await run("--url", api.url);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^gangs: http:\/\/127\.0\.0\.1:\d+\/v1\/gangs answered a body that is not a gang list \(items\.0\.namespace: .*\n$/);
  const html = await serve(t, (_request, response) => response.end("<html></html>"));
  const notJson = await run("--url", html.url);
  assert.equal(notJson.status, 1);
  assert.match(notJson.stderr, /^gangs: .* answered a body that is not JSON .*\n$/);
});

test("a missing endpoints.json asks whether the stack is running; a refused connection is one line", async (t) => {
  const state = folder(t);
  const missing = await run("--state", state);
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr, `gangs: no ${join(state, "endpoints.json")}: is the stack running? start it with npm start (or pass --url URL for a relay on a cluster)\n`);

  // A port known to be free: listened on, then closed.
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  writeFileSync(join(state, "endpoints.json"), JSON.stringify({ apis: { gangs: `http://127.0.0.1:${port}` } }));
  const refused = await run("--state", state);
  assert.equal(refused.status, 1);
  assert.equal(refused.stderr, `gangs: cannot connect to http://127.0.0.1:${port}/v1/gangs: connection refused (is the stack running? start it with npm start)\n`);

  writeFileSync(join(state, "endpoints.json"), JSON.stringify({ apis: { replicas: "http://127.0.0.1:1" } }));
  const noApi = await run("--state", state);
  assert.equal(noApi.status, 1);
  assert.match(noApi.stderr, /^gangs: .*endpoints\.json names no gangs API.*\n$/);
});

test("--watch prints the queue and does not exit after it (it prints it again until stopped)", async (t) => {
  const api = await serve(t, gangs);
  const child = spawn(process.execPath, [script, "--watch", "--url", api.url], { stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => void (child.exitCode === null && child.kill("SIGKILL")));
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line);
      if (lines.length === 3) resolve();
    });
    child.once("exit", (code) => reject(new Error(`gangs --watch exited with ${String(code)}`)));
  });
  assert.match(lines[0] ?? "", /^NAMESPACE +GROUP/);
  assert.equal(child.exitCode, null);
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
});

test("bad flags exit 2 naming the flag", async () => {
  const result = await run("-o", "yaml");
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^gangs: --output: /);
  const url = await run("--url", "127.0.0.1:8080");
  assert.equal(url.status, 2);
  assert.match(url.stderr, /^gangs: --url: --url needs an http/);
});
