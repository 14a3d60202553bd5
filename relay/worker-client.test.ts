import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyRequest } from "../protocol/index.ts";
import { WorkerClient } from "./worker-client.ts";

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
