/**
 * The local Worker's URL: served by workerd straight from the Worker's own socket, on the
 * port asked for, and the same URL after a restart (the relay keeps the one it was given).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startWorker } from "./worker.ts";
import { freePort } from "../../cli/ports.ts";


async function healthy(url: string): Promise<void> {
  const response = await fetch(`${url}/healthz`);
  assert.equal(response.status, 200);
  assert.equal(((await response.json()) as { ok?: unknown }).ok, true);
}

test("the Worker answers on the port asked for, and on the same URL after a restart", async () => {
  const port = await freePort();
  const worker = await startWorker({ secret: "test-secret" });
  const pinned = await startWorker({ secret: "test-secret", port });
  try {
    assert.equal(pinned.url, `http://127.0.0.1:${port}`);
    await healthy(pinned.url);
    const before = worker.url;
    await healthy(before);
    await worker.restart();
    assert.equal(worker.url, before);
    await healthy(worker.url);
  } finally {
    await worker.stop();
    await pinned.stop();
    await worker.stop(); // a second stop does nothing
  }
});
