import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { startProxy } from "./proxy.ts";

test("the proxy carries requests, refuses them while cut, and carries them again once resumed", async () => {
  const server = createServer((_request, response) => response.end("hello"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxy = await startProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    assert.equal(await (await fetch(proxy.url)).text(), "hello");
    proxy.cut();
    await assert.rejects(fetch(proxy.url));
    proxy.resume();
    assert.equal(await (await fetch(proxy.url, { headers: { connection: "close" } })).text(), "hello");
  } finally {
    await proxy.close();
    server.closeAllConnections();
    server.close();
  }
});
