import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest } from "../../protocol/index.ts";
import type { ApiHost } from "./api.ts";
import { startApiServer } from "./servers.ts";

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
