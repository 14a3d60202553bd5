import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest } from "../../protocol/index.ts";
import type { ApiHost } from "./api.ts";
import { startApiServer, startOpsServer, type ReadinessCheck } from "./servers.ts";
import { CONNECTION_LIMITS, type ConnectionLimits } from "../../cli/http-limits.ts";
import { idleConnections, slowloris } from "../../test/support/slowloris.ts";

test("a body over the limit is answered 413 (read and dropped), not with a reset", async () => {
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], apis: [{ name: "a", pathPrefix: "/v1/a", timeoutSeconds: 5 }] }] });
  const apis = { manifest } as unknown as ApiHost;
  const server = await startApiServer({ admission: { review: () => Promise.reject(new Error("no admission here")) }, apis }, 0, "127.0.0.1", () => undefined);
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/a`, { method: "POST", body: new Uint8Array(8 * 1024 * 1024 + 1) });
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, "too_large");
  } finally {
    await server.close();
  }
});

test("the ops port: /livez and /healthz 200 while serving, /readyz 503 until every check not excluded passes, /metrics the registry's text", async (t) => {
  let synced = false;
  let worker: string | undefined = "unreachable";
  const readiness = (): ReadinessCheck[] => [
    { name: "informer-sync", failure: synced ? undefined : "informers not synced yet" },
    { name: "worker", failure: worker },
  ];
  const ops = await startOpsServer({ readiness, metrics: { render: () => Promise.resolve("m 1\n"), contentType: "text/plain" } }, 0, "127.0.0.1");
  t.after(() => ops.close());
  const status = async (path: string): Promise<number> => (await fetch(`http://127.0.0.1:${ops.port}${path}`)).status;
  assert.deepEqual([await status("/livez"), await status("/healthz"), await status("/readyz"), await status("/readyz?exclude=worker")], [200, 200, 503, 503]);
  synced = true;
  assert.deepEqual([await status("/readyz"), await status("/readyz?exclude=worker")], [503, 200], "the installed probe leaves the Worker out (ADR 0034)");
  assert.deepEqual(await (await fetch(`http://127.0.0.1:${ops.port}/readyz`)).json(), { ready: false, checks: { "informer-sync": "ok", worker: "unreachable" } });
  assert.deepEqual(await (await fetch(`http://127.0.0.1:${ops.port}/readyz?exclude=worker`)).json(), { ready: true, checks: { "informer-sync": "ok", worker: "excluded" } });
  worker = undefined;
  assert.equal(await status("/readyz"), 200);
  assert.equal(await (await fetch(`http://127.0.0.1:${ops.port}/metrics`)).text(), "m 1\n");
  assert.equal(await status("/livez/nope"), 404);
});

test("an API body nested 100,000 deep is a 400 naming the field, never handed to the API (issue 28, finding 7f)", async (t) => {
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], apis: [{ name: "a", pathPrefix: "/v1/a", timeoutSeconds: 5 }] }] });
  const apis = { manifest } as unknown as ApiHost;
  const server = await startApiServer({ admission: { review: () => Promise.reject(new Error("no admission here")) }, apis }, 0, "127.0.0.1", () => undefined);
  t.after(() => server.close());
  const depth = 100_000;
  const response = await fetch(`http://127.0.0.1:${server.port}/v1/a`, { method: "POST", body: `{"spec":${"[".repeat(depth)}${"]".repeat(depth)}}` });
  assert.equal(response.status, 400);
  const { error } = (await response.json()) as { error: { code: string; path: string } };
  assert.equal(error.code, "too_deep");
  assert.match(error.path, /^spec(\.0)+$/);
});

/** Limits short enough for a test: headers 300 ms, request 600 ms, checked every 100 ms, 3 connections. */
const SHORT: ConnectionLimits = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, checkIntervalMs: 100, maxConnections: 3 };

test("the API port closes a slowloris (headers or body a byte at a time) within its limits and caps its connections (issue 28, finding 7e)", async (t) => {
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], apis: [{ name: "a", pathPrefix: "/v1/a", timeoutSeconds: 5 }] }] });
  const server = await startApiServer({ admission: { review: () => Promise.reject(new Error("no admission here")) }, apis: { manifest } as unknown as ApiHost }, 0, "127.0.0.1", () => undefined, SHORT);
  t.after(() => server.close());
  const headers = await slowloris(server.port, "headers", 50, 3_000);
  assert.ok(headers.heldMs !== undefined && headers.heldMs < 1_000, `headers trickled: held ${headers.heldMs} ms`);
  const body = await slowloris(server.port, "body", 50, 3_000, "/v1/a");
  assert.ok(body.heldMs !== undefined && body.heldMs < 1_500, `body trickled: held ${body.heldMs} ms`);
  assert.equal(body.status, 408);
  assert.ok((await idleConnections(server.port, 4, 2_000)) >= 1, "a fourth connection is closed at once");
});

test("the ops port closes a slowloris within its limits (issue 28, finding 7e)", async (t) => {
  const ops = await startOpsServer({ readiness: () => [], metrics: { render: () => Promise.resolve(""), contentType: "text/plain" } }, 0, "127.0.0.1", SHORT);
  t.after(() => ops.close());
  const headers = await slowloris(ops.port, "headers", 50, 3_000);
  assert.ok(headers.heldMs !== undefined && headers.heldMs < 1_000, `held ${headers.heldMs} ms`);
});

test("the default limits: headers 10 s, a request 60 s, idle keep-alive 5 s, checked every second, 4,096 connections", () => {
  assert.deepEqual(CONNECTION_LIMITS, { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, checkIntervalMs: 1_000, maxConnections: 4_096 });
});
