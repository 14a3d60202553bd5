import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeClient, RETRY_AFTER_RETRIES, retryAfterMs } from "./client.ts";
import { StatusError } from "../../protocol/index.ts";

/** A server answering each request with the next of `answers` (the last one repeated). */
async function scripted(answers: readonly { status: number; retryAfter?: string }[]): Promise<{ server: Server; url: string; calls: () => number }> {
  let calls = 0;
  const server = createServer((request, response) => {
    request.resume();
    const answer = answers[Math.min(calls, answers.length - 1)] ?? { status: 200 };
    calls += 1;
    const body = answer.status < 300 ? JSON.stringify({ ok: true }) : JSON.stringify({ kind: "Status", reason: answer.status === 429 ? "TooManyRequests" : "InternalError", message: `answer ${calls}` });
    response.writeHead(answer.status, { "content-type": "application/json", ...(answer.retryAfter ? { "retry-after": answer.retryAfter } : {}) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls };
}

function clientFor(url: string, waits: number[], retries?: number): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: "c", server: url, skipTLSVerify: true }], users: [{ name: "u" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" });
  return new KubeClient(kc, { sleep: (ms) => (waits.push(ms), Promise.resolve()), ...(retries === undefined ? {} : { retryAfterRetries: retries }) });
}

test("retryAfterMs reads whole seconds on 429 and 5xx only", () => {
  assert.equal(retryAfterMs(429, "2"), 2_000);
  assert.equal(retryAfterMs(503, ["1"]), 1_000);
  assert.equal(retryAfterMs(500, undefined), undefined);
  assert.equal(retryAfterMs(409, "2"), undefined, "a Conflict is not a request to wait");
  assert.equal(retryAfterMs(429, "Wed, 21 Oct 2015 07:28:00 GMT"), undefined);
});

test("a 429 with Retry-After is sent again only after the wait it names, until it succeeds", async () => {
  const { server, url, calls } = await scripted([{ status: 429, retryAfter: "2" }, { status: 503, retryAfter: "1" }, { status: 200 }]);
  try {
    const waits: number[] = [];
    assert.deepEqual(await clientFor(url, waits).request("POST", "/api/v1/namespaces/a/pods", { body: {} }), { ok: true });
    assert.deepEqual(waits, [2_000, 1_000]);
    assert.equal(calls(), 3);
  } finally {
    server.close();
  }
});

test("a 500 without Retry-After is not retried by the client; retries that run out leave the wait on the error", async () => {
  const plain = await scripted([{ status: 500 }]);
  const busy = await scripted([{ status: 429, retryAfter: "4" }]);
  try {
    const waits: number[] = [];
    await assert.rejects(clientFor(plain.url, waits).request("GET", "/x"), (error: unknown) => error instanceof StatusError && error.status === 500 && error.retryAfterMs === undefined);
    assert.equal(plain.calls(), 1);
    await assert.rejects(clientFor(busy.url, waits).request("GET", "/x"), (error: unknown) => error instanceof StatusError && error.status === 429 && error.retryAfterMs === 4_000);
    assert.equal(busy.calls(), RETRY_AFTER_RETRIES + 1);
    assert.ok(waits.every((ms) => ms === 4_000));
    const none: number[] = [];
    await assert.rejects(clientFor(busy.url, none, 0).request("GET", "/x"), (error: unknown) => error instanceof StatusError && error.retryAfterMs === 4_000);
    assert.deepEqual(none, [], "with no retries the caller gets the wait");
  } finally {
    plain.server.close();
    busy.server.close();
  }
});
