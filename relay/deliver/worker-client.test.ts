import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyRequest, StatusError } from "../../protocol/index.ts";
import { WorkerClient, workerAway, type WorkerTransport } from "./worker-client.ts";

const SECRET = "relay-test-secret-0123";

interface Received {
  readonly method: string;
  readonly target: string;
  readonly body: string;
  readonly timestamp: string;
  readonly signature: string;
}

const received: Received[] = [];
const answers: Record<string, unknown> = {
  "/v1/manifest": { version: "v1", controllers: [] },
  "/v1/reconcile/mirror": { actions: [] },
  "/v1/outbox": { cursor: "7", entries: [] },
  "/v1/channels/edge/connect": { from: "12" },
  "/v1/channels/edge/feed": { cursor: "3", texts: ["x"], frames: [{ seq: "3", peer: "node-a", text: 0 }] },
  "/v1/channels/edge/receive": { accepted: false, reason: "malformed" },
  "/v1/channels/bad/connect": { from: -1 },
};

let server: Server;
let client: WorkerClient;
before(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const target = request.url ?? "";
      const header = (name: string): string => String(request.headers[name] ?? "");
      received.push({ method: request.method ?? "", target, body, timestamp: header(TIMESTAMP_HEADER), signature: header(SIGNATURE_HEADER) });
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(answers[target.split("?")[0] ?? ""] ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = new WorkerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, SECRET);
});
after(() => {
  server.close();
});

/** What the Worker would say of the request as it arrived: null when the signature is good. */
function verify(request: Received): Promise<string | null> {
  return verifyRequest(SECRET, request, { method: request.method, target: request.target, body: request.body }, Date.now() / 1000);
}

test("every call is signed over its method, path and query as sent, and body", async () => {
  received.length = 0;
  await client.manifest();
  await client.reconcile("mirror", { any: "body" });
  await client.outbox("5", 0);
  assert.deepEqual(received.map((r) => `${r.method} ${r.target}`), ["GET /v1/manifest", "POST /v1/reconcile/mirror", "GET /v1/outbox?cursor=5&wait=0"]);
  for (const request of received) assert.equal(await verify(request), null, request.target);
  const [manifest, , outbox] = received;
  assert.equal(await verifyRequest(SECRET, manifest!, { method: "GET", target: outbox!.target, body: "" }, Date.now() / 1000), "mismatch", "the manifest's signature is not the outbox's");
});

test("the same outbox read sent twice in a row is signed at two different seconds (the Worker refuses a repeated signature)", async () => {
  received.length = 0;
  await client.outbox("9", 0);
  await client.outbox("9", 0);
  const [first, second] = received;
  assert.ok(first && second);
  assert.equal(first.target, second.target);
  assert.ok(Number(second.timestamp) > Number(first.timestamp), `${first.timestamp} then ${second.timestamp}`);
  assert.notEqual(first.signature, second.signature);
  assert.equal(await verify(second), null);
});

test("the channel calls are signed POSTs to their channel's routes; answers are parsed (defaults applied), a bad one refused", async () => {
  received.length = 0;
  const now = new Date().toISOString();
  assert.deepEqual(await client.channelConnect("edge", { peer: "node-a", now }), { from: "12" });
  assert.deepEqual(await client.channelFeed("edge", { cursor: "2", waitSeconds: 0, delivered: [{ peer: "node-a", seq: "2" }] }), { cursor: "3", texts: ["x"], frames: [{ seq: "3", peer: "node-a", text: 0 }] });
  assert.deepEqual(await client.channelReceive("edge", { id: "r-1", peer: "node-a", data: "{}", now }), { accepted: false, reason: "malformed", actions: [] });
  assert.deepEqual(received.map((r) => `${r.method} ${r.target}`), ["POST /v1/channels/edge/connect", "POST /v1/channels/edge/feed", "POST /v1/channels/edge/receive"]);
  for (const request of received) assert.equal(await verify(request), null, request.target);
  assert.deepEqual(JSON.parse(received[1]?.body ?? ""), { cursor: "2", waitSeconds: 0, delivered: [{ peer: "node-a", seq: "2" }] });
  await assert.rejects(client.channelConnect("bad", { peer: "node-a", now }), (error: unknown) => error instanceof StatusError && error.status === 502);
});

test("the same feed read sent twice in a row is signed at two different seconds; a different one is not delayed", async () => {
  received.length = 0;
  const request = { cursor: "4", waitSeconds: 0, delivered: [] };
  await client.channelFeed("edge", request);
  await client.channelFeed("edge", request);
  const [first, second] = received;
  assert.ok(first && second);
  assert.ok(Number(second.timestamp) > Number(first.timestamp), `${first.timestamp} then ${second.timestamp}`);
  assert.equal(await verify(second), null);
});

test("an injected transport carries every call: signed as over HTTP, its answers parsed, a 429's Retry-After reported", async () => {
  const sent: { url: string; method: string; body: string; headers: Record<string, string> }[] = [];
  let status = 200;
  const transport: WorkerTransport = (url, init) => {
    sent.push({ url, method: init.method, body: init.body === undefined ? "" : new TextDecoder().decode(init.body), headers: init.headers });
    const answer = url.endsWith("/healthz") ? { ok: true } : { actions: [] };
    return Promise.resolve(new Response(JSON.stringify(answer), { status, headers: status === 429 ? { "retry-after": "3" } : {} }));
  };
  const injected = new WorkerClient("http://in-process.invalid/", SECRET, undefined, transport);
  assert.deepEqual(await injected.reconcile("mirror", { a: 1 }), { actions: [] });
  assert.equal(await injected.healthy(), true);
  const [call, health] = sent;
  assert.ok(call && health);
  assert.equal(call.url, "http://in-process.invalid/v1/reconcile/mirror");
  assert.equal(health.url, "http://in-process.invalid/healthz");
  const request = { method: call.method, target: "/v1/reconcile/mirror", body: call.body, timestamp: call.headers[TIMESTAMP_HEADER] ?? "", signature: call.headers[SIGNATURE_HEADER] ?? "" };
  assert.equal(await verify(request), null);
  status = 429;
  await assert.rejects(injected.reconcile("mirror", {}), (error: unknown) => error instanceof StatusError && error.status === 429 && error.retryAfterMs === 3_000);
  const unreachable = new WorkerClient("http://in-process.invalid", SECRET, undefined, () => Promise.reject(new Error("down")));
  await assert.rejects(unreachable.manifest(), (error: unknown) => error instanceof StatusError && error.status === 0);
  assert.equal(await unreachable.healthy(), false);
});

/** A transport whose calls wait to be answered: `next()` resolves with the answer of the next call to arrive. */
function heldTransport(): { transport: WorkerTransport; next: () => Promise<() => void> } {
  const arrived: (() => void)[] = [];
  const takers: ((answer: () => void) => void)[] = [];
  const transport: WorkerTransport = () =>
    new Promise((resolve) => {
      const answer = (): void => resolve(new Response(JSON.stringify({ actions: [] })));
      const taker = takers.shift();
      if (taker) taker(answer);
      else arrived.push(answer);
    });
  const next = (): Promise<() => void> =>
    new Promise((take) => {
      const answer = arrived.shift();
      if (answer) take(answer);
      else takers.push(take);
    });
  return { transport, next };
}

test("a bulk delivery's body is built only once the budget holds room for its route's last size: big snapshots are built a few at a time", async () => {
  const { transport, next } = heldTransport();
  const client = new WorkerClient("http://in-process.invalid", SECRET, undefined, transport);
  const big = { pods: "x".repeat(3 * 1024 * 1024) };
  const first = client.reconcile("nodes", () => big);
  (await next())();
  await first;
  // The route's bodies are now known to be 3 MiB: of five deliveries, two fit the 8 MiB budget.
  let built = 0;
  const deliveries = Array.from({ length: 5 }, () => client.reconcile("nodes", () => ((built += 1), big)));
  const sent = [await next(), await next()];
  assert.equal(built, 2, "built while room is held, not before: the others wait for a body to come back");
  for (let answered = 0; answered < 5; answered++) {
    const answer = sent.shift() ?? (await next());
    answer();
  }
  await Promise.all(deliveries);
  assert.equal(built, 5);
});

test("a repeated outbox read after the wall clock stepped back 120 s waits a second at most, not the step (issue 28, finding 4)", async (t) => {
  const wall = Date.now;
  t.after(() => (Date.now = wall));
  received.length = 0;
  await client.outbox("11", 0);
  Date.now = () => wall() - 120_000;
  const started = performance.now();
  const signal = AbortSignal.timeout(5_000);
  await client.outbox("11", 0, signal);
  const waitedMs = performance.now() - started;
  assert.ok(waitedMs < 1_500, `waited ${Math.round(waitedMs)} ms`);
  const [first, second] = received;
  assert.ok(first && second);
  assert.notEqual(first.signature, second.signature, "still never the same signature twice");
});

test("the Worker is away when a call gets no answer or an edge's 5xx; its own error bodies, 5xx included, are answers", () => {
  assert.equal(workerAway(new StatusError(0, "Unreachable", "worker unreachable: connect ECONNREFUSED")), true);
  assert.equal(workerAway(new StatusError(503, "Unknown", "worker answered 503: link fault: 503 (upstream)")), true);
  assert.equal(workerAway(new StatusError(502, "Unknown", "worker answered 502: <html>")), true);
  assert.equal(workerAway(new StatusError(500, "internal", "worker answered 500: {\"error\":{\"code\":\"internal\"}}")), false);
  assert.equal(workerAway(new StatusError(503, "not_ready", "Durable Object FAMILY_QUEUE: storage reset")), false);
  assert.equal(workerAway(new StatusError(401, "bad_signature", "signature mismatch")), false);
  assert.equal(workerAway(new Error("not a StatusError")), false);
});
