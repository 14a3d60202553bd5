/**
 * The in-process baseline answers as the Worker in workerd does: the same manifest, the
 * same plan for a snapshot, the same refusal of a bad signature (ADR 0015).
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { LEDGER } from "../../../durable/table.ts";
import { StatusError } from "../../../protocol/index.ts";
import { WorkerClient } from "../../../relay/deliver/worker-client.ts";
import { startWorker, type RunningWorker } from "../../../scripts/lib/worker.ts";
import { SECRET } from "../../worker/client.ts";
import { bundleWorkerForNode } from "./bundle.ts";
import { startInProcessWorker, type InProcessWorker } from "./worker.ts";

const FIXTURES = join(import.meta.dirname, "../../fixtures/controllers");
const IN_PROCESS_URL = "http://in-process.invalid";

let real: RunningWorker;
let local: InProcessWorker;
let modulePath: string;
before(async () => {
  real = await startWorker({ secret: SECRET, extraControllerDirs: [FIXTURES], apiAddress: "127.0.0.1:8080" });
  modulePath = await bundleWorkerForNode([FIXTURES]);
  local = await startInProcessWorker({ modulePath, secret: SECRET, apiAddress: "127.0.0.1:8080" });
});
after(async () => {
  local.close();
  rmSync(dirname(modulePath), { recursive: true, force: true });
  await real.stop();
});

const viaWorkerd = (secret = SECRET): WorkerClient => new WorkerClient(real.url, secret);
const inProcess = (secret = SECRET): WorkerClient => new WorkerClient(IN_PROCESS_URL, secret, undefined, local.transport);

test("GET /v1/manifest: the same answer in process as from workerd", async () => {
  const [fromWorkerd, fromProcess] = await Promise.all([viaWorkerd().manifest(), inProcess().manifest()]);
  assert.ok(fromWorkerd.controllers.length > 0);
  assert.deepEqual(fromProcess, fromWorkerd);
});

test("the health check answers in process, and the signed readiness call alike (the benches wait on /readyz)", async () => {
  assert.equal(await inProcess().healthy(), true);
  const [fromWorkerd, fromProcess] = await Promise.all([viaWorkerd().readiness(), inProcess().readiness()]);
  // Each storage has an incarnation of its own: the same bindings answer, each with an id.
  const shape = (answer: typeof fromWorkerd): [boolean, string[]] => [answer.ok, Object.keys(answer.durableObjects).sort()];
  assert.deepEqual(shape(fromProcess), shape(fromWorkerd));
  for (const { incarnation } of Object.values(fromProcess.durableObjects)) assert.match(incarnation, /^[0-9a-f-]{36}$/);
});

test("a snapshot of the mirror controller: the same plan in process as from workerd", async () => {
  const parent = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p", namespace: "default", uid: "uid-p", labels: { "edgeloop.test/parent": "true" } }, data: { a: "1" } };
  const snapshot = { controller: "mirror", key: "default/p", parent, children: { "ConfigMap.v1": [] }, now: new Date().toISOString() };
  const [fromWorkerd, fromProcess] = await Promise.all([viaWorkerd().reconcile("mirror", snapshot), inProcess().reconcile("mirror", snapshot)]);
  assert.deepEqual(fromProcess, fromWorkerd);
  assert.equal(fromProcess.actions.length, 1);
});

test("a request signed with another secret is refused alike (401)", async () => {
  const refusal = async (client: WorkerClient): Promise<number> => {
    const error = await client.manifest().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof StatusError);
    return error.status;
  };
  const other = "another-secret-0123456789";
  assert.equal(await refusal(inProcess(other)), await refusal(viaWorkerd(other)));
  assert.equal(await refusal(inProcess(other)), 401);
});

test("the Durable Objects answer in process: a ledger claim is granted once", async () => {
  const ledger = local.durableObject(LEDGER, "ns-test");
  const claim = async (): Promise<boolean | undefined> => {
    const answer = await ledger.claimAll([{ key: "k", ttlSeconds: 60 }]);
    return answer.replayed ? undefined : answer.granted[0];
  };
  assert.equal(await claim(), true);
  assert.equal(await claim(), false);
});
