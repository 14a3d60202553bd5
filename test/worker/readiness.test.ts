/**
 * The signed readiness call in real workerd (issue 28, finding 7c): what the relay's
 * `/readyz` reflects. Every Durable Object namespace bound (the floor's and the families')
 * answers a read; a relay with another secret is refused, so it is not ready.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { StatusError } from "../../protocol/index.ts";
import { WorkerClient } from "../../relay/deliver/worker-client.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { SECRET } from "./client.ts";

let worker: RunningWorker;
before(async () => {
  worker = await startWorker({ secret: SECRET });
});
after(async () => {
  await worker.stop();
});

test("the readiness call reads one object of every Durable Object namespace bound", async () => {
  const answer = await new WorkerClient(worker.url, SECRET).readiness();
  assert.equal(answer.ok, true);
  for (const binding of ["LEDGER", "OUTBOX", "REPLAY", "GANG", "SEDNA_EDGE"]) assert.match(answer.durableObjects[binding]?.incarnation ?? "", /^[0-9a-f-]{36}$/, `${binding} in ${JSON.stringify(answer.durableObjects)}`);
  const again = await new WorkerClient(worker.url, SECRET).readiness();
  assert.deepEqual(again.durableObjects, answer.durableObjects, "the same storage answers the same incarnation");
});

test("a relay with another secret is not ready: the readiness call is refused (its /healthz still answers)", async () => {
  const stranger = new WorkerClient(worker.url, "another-secret-0123456789");
  assert.equal(await stranger.healthy(), true);
  await assert.rejects(stranger.readiness(), (error: unknown) => error instanceof StatusError && error.status === 401);
});
