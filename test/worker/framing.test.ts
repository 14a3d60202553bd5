/**
 * Malformed HTTP framing at the local Worker (issue 28, finding 7d): workerd's own parser
 * answers a 500 before the Worker runs (no route can catch it); the local stack's framing
 * guard (scripts/lib/framing-guard.ts) answers a 400 naming the header, and passes
 * well-framed signed calls through.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { WorkerClient } from "../../relay/deliver/worker-client.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { SECRET } from "./client.ts";

/** Malformed requests, and the header each 400 must name. */
const MALFORMED: readonly (readonly [string, string, string])[] = [
  ["Content-Length not a number", "Content-Length: abc\r\n\r\n{}", "content-length"],
  ["Content-Length a list", "Content-Length: 2, 3\r\n\r\n{}", "content-length"],
  ["two Content-Lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "content-length"],
  ["Transfer-Encoding gzip", "Transfer-Encoding: gzip\r\n\r\n{}", "transfer-encoding"],
  ["Transfer-Encoding and Content-Length", "Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n", "content-length"],
  ["a chunk size not hex", "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", "transfer-encoding"],
];

/** Sends `raw` after a request line and Host; resolves with the status and body answered (the connection is closed by either side; status NaN: closed with no answer). */
function send(url: string, headers: string, requestLine = "POST /v1/reconcile/mirror HTTP/1.1"): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${requestLine}\r\nHost: worker\r\n${headers}`, () => undefined));
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("utf8");
      const [head, body = ""] = answer.split("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(head ?? "")?.[1]);
      if (Number.isFinite(length) && Buffer.byteLength(body) >= length) socket.destroy();
    });
    socket.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]), body: answer.split("\r\n\r\n")[1] ?? "" }));
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" || error.code === "EPIPE" ? undefined : reject(error)));
  });
}

let direct: RunningWorker;
let guarded: RunningWorker;
before(async () => {
  direct = await startWorker({ secret: SECRET });
  guarded = await startWorker({ secret: SECRET, guardFraming: true });
});
after(async () => {
  await guarded.stop();
  await direct.stop();
});

test("workerd itself answers malformed framing with a 500 (why the guard exists: if this fails, workerd fixed it)", async () => {
  const statuses = await Promise.all(MALFORMED.slice(0, 2).map(([, headers]) => send(direct.url, headers)));
  assert.deepEqual(statuses.map((s) => s.status), [500, 500]);
});

test("through the guard, each malformed framing is a 400 naming the header", async () => {
  for (const [name, headers, field] of MALFORMED) {
    const { status, body } = await send(guarded.url, headers);
    assert.equal(status, 400, name);
    const error = (JSON.parse(body) as { error: { code: string; path: string } }).error;
    assert.deepEqual([error.code, error.path], ["bad_framing", field], name);
  }
});

test("through the guard, well-framed signed calls pass: the manifest and the readiness call", async () => {
  const client = new WorkerClient(guarded.url, SECRET);
  assert.equal((await client.manifest()).version, "v1");
  assert.equal((await client.readiness()).ok, true);
});

test("through the guard, an absolute-form target is served as its path (workerd's URL parser threw on it: a 500)", async () => {
  const { status, body } = await send(guarded.url, "\r\n", "GET http://other.invalid/healthz HTTP/1.1");
  assert.equal(status, 200, body);
  assert.equal((await send(guarded.url, "\r\n", "GET ftp://other.invalid/healthz HTTP/1.1")).status, 400);
});

test("through the guard, a large unsigned body workerd refuses before reading it gets workerd's answer or a closed connection, never a 5xx", async () => {
  const body = "x".repeat(2 * 1024 * 1024);
  for (const length of [body.length, 9 * 1024 * 1024]) {
    const { status } = await send(guarded.url, `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${body}`);
    assert.ok(Number.isNaN(status) || (status >= 400 && status < 500), `Content-Length ${length}: ${status}`);
  }
});
