/**
 * Honest signals through a Worker outage: `/readyz` turns not-ready when the Worker
 * cannot be reached, even with nothing to reconcile, and ready again when it is back;
 * the queue depth counts the keys backing off meanwhile.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { waitForObject } from "../support/cluster-waits.ts";
import { testStack } from "./harness.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
let stack: Stack;

before(async () => {
  stack = await testStack();
});
after(async () => {
  await stack.stop();
});

const readyz = async (): Promise<number> => (await fetch(`${stack.relay.opsUrl}/readyz`)).status;
const gauge = async (name: string): Promise<number> => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(await (await fetch(`${stack.relay.opsUrl}/metrics`)).text())?.[1] ?? NaN);

test("an idle relay turns not-ready when the Worker goes away, counts the keys backing off, and is ready again when it is back", async () => {
  await waitFor("ready (/readyz's status)", readyz, (status) => status === 200, { timeoutMs: 15_000 });
  await stack.worker.stop();
  // Nothing is reconciled: only the probe can tell.
  await waitFor("not ready without the Worker (/readyz's status)", readyz, (status) => status === 503, { timeoutMs: 15_000 });

  await stack.sim.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "outage", namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { a: "1" } } as KubeObject);
  // One scrape for both gauges: between two scrapes the key may be in flight for its next try (then in neither).
  const waitingRetry = (text: string): number => Number(/^edgeloop_queue_waiting_retry (\d+)$/m.exec(text)?.[1] ?? 0);
  const scrape = await waitFor("the failing key counted as waiting (edgeloop_queue_waiting_retry)", async () => (await fetch(`${stack.relay.opsUrl}/metrics`)).text(), (text) => waitingRetry(text) >= 1, {
    timeoutMs: 15_000,
    describe: (text) => String(waitingRetry(text)),
  });
  assert.ok(Number(/^edgeloop_queue_depth (\d+)$/m.exec(scrape)?.[1] ?? 0) >= 1, "a key backing off is a key waiting");

  await stack.worker.restart();
  await waitFor("ready again (/readyz's status)", readyz, (status) => status === 200, { timeoutMs: 15_000 });
  await waitForObject(stack.sim.cluster, CM, "default", "outage-mirror", () => true, 45_000);
  await waitFor("the queue drained (edgeloop_queue_depth)", () => gauge("edgeloop_queue_depth"), (depth) => depth === 0, { timeoutMs: 15_000 });
});
