import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest } from "../../protocol/index.ts";
import type { ApiHost } from "./api.ts";
import { startApiServer, startOpsServer } from "./servers.ts";

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

test("the ops port: /livez and /healthz 200 while serving, /readyz 503 until ready, /metrics the registry's text", async (t) => {
  let ready = false;
  const ops = await startOpsServer({ ready: () => ready, metrics: { render: () => Promise.resolve("m 1\n"), contentType: "text/plain" } }, 0, "127.0.0.1");
  t.after(() => ops.close());
  const status = async (path: string): Promise<number> => (await fetch(`http://127.0.0.1:${ops.port}${path}`)).status;
  assert.deepEqual([await status("/livez"), await status("/healthz"), await status("/readyz")], [200, 200, 503]);
  ready = true;
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
