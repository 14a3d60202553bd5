import assert from "node:assert/strict";
import { test } from "node:test";
import { startSim } from "../index.ts";

test("a watch from a resourceVersion beyond the store's answers 504 ResourceVersionTooLarge, as kube-apiserver does", async () => {
  const sim = await startSim({ controllers: false });
  try {
    const current = sim.cluster.store.resourceVersion;
    const response = await fetch(`${sim.url}/api/v1/configmaps?watch=true&resourceVersion=${current + 1000}`);
    assert.equal(response.status, 200, "watch errors come as an ERROR event, as from the watch cache");
    const lines = (await response.text()).trim().split("\n");
    assert.equal(lines.length, 1, "the stream ends after the error");
    const event = JSON.parse(lines[0] ?? "") as { type: string; object: { code: number; reason: string; message: string; details: { causes: { reason: string }[] } } };
    assert.equal(event.type, "ERROR");
    assert.equal(event.object.code, 504);
    assert.equal(event.object.reason, "Timeout");
    assert.match(event.object.message, /Too large resource version: \d+, current: \d+/);
    assert.deepEqual(event.object.details.causes.map((c) => c.reason), ["ResourceVersionTooLarge"]);
  } finally {
    await sim.stop();
  }
});

test("a watch from the current resourceVersion is served", async () => {
  const sim = await startSim({ controllers: false });
  try {
    const controller = new AbortController();
    const response = await fetch(`${sim.url}/api/v1/configmaps?watch=true&resourceVersion=${sim.cluster.store.resourceVersion}`, { signal: controller.signal });
    assert.equal(response.status, 200);
    controller.abort();
    await response.body?.cancel().catch(() => undefined);
  } finally {
    await sim.stop();
  }
});
