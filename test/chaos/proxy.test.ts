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

test("a dropped answer: the request reaches the server, the client's connection is reset; the next is carried", async () => {
  let served = 0;
  const server = createServer((_request, response) => {
    served += 1;
    response.end("done");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxy = await startProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    proxy.dropAnswers({ request: "POST /v1/api/", contains: "gang-7", count: 1 });
    assert.equal(await (await fetch(`${proxy.url}/v1/other`, { method: "POST", body: "gang-7" })).text(), "done", "another path is carried");
    assert.equal(await (await fetch(`${proxy.url}/v1/api/replicas`, { method: "POST", body: "gang-6" })).text(), "done", "another body is carried");
    await assert.rejects(fetch(`${proxy.url}/v1/api/replicas`, { method: "POST", headers: { connection: "close" }, body: "x".repeat(100_000) + "gang-7" }));
    assert.equal(served, 3, "the dropped request was served");
    assert.equal(proxy.dropped, 1);
    assert.equal(await (await fetch(`${proxy.url}/v1/api/replicas`, { method: "POST", headers: { connection: "close" } })).text(), "done", "only one is dropped");
  } finally {
    await proxy.close();
    server.closeAllConnections();
    server.close();
  }
});
