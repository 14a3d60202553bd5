/** Two relay replicas with leader election: one reconciles; the other takes over when the lease is released or lapses. */
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { freePort, portFree } from "../../cli/ports.ts";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { startRelay, type RunningRelay } from "../../relay/index.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { waitForObject } from "../support/cluster-waits.ts";
import { testStack } from "./harness.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
let stack: Stack;
const replicas: RunningRelay[] = [];

const parent = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { a: "1" } }) as KubeObject;

async function replica(identity: string): Promise<RunningRelay> {
  const relay = await startRelay({
    workerUrl: stack.worker.url,
    secret: stack.secret,
    kubeconfigPath: stack.sim.kubeconfigPath ?? "",
    opsPort: 0,
    logLevel: "error",
    leaderElection: { namespace: "default", name: "edgeloop-relay", identity, leaseDurationSeconds: 2, retrySeconds: 0.25 },
  });
  replicas.push(relay);
  return relay;
}

before(async () => {
  stack = await testStack({ nodes: 1 });
  await stack.relay.stop(); // replaced by the two replicas below
});

after(async () => {
  for (const relay of replicas) await relay.stop().catch(() => undefined);
  await stack.stop();
});

test("exactly one replica leads; the standby takes over when the leader releases the lease, or when it lapses", async () => {
  const a = await replica("relay-a");
  await waitFor("relay-a to lead", () => a.engine.leading, Boolean);
  const b = await replica("relay-b");
  await stack.sim.cluster.create(parent("one"));
  await waitForObject(stack.sim.cluster, CM, "default", "one-mirror");
  assert.equal(b.engine.leading, false, "the standby does not reconcile");
  // client-go's leader election gauge, under the lease's name: 1 on the leader, 0 on the standby.
  assert.match(await (await fetch(`${a.opsUrl}/metrics`)).text(), /^leader_election_master_status\{name="edgeloop-relay"\} 1$/m);
  assert.match(await (await fetch(`${b.opsUrl}/metrics`)).text(), /^leader_election_master_status\{name="edgeloop-relay"\} 0$/m);
  assert.match(await (await fetch(`${b.opsUrl}/readyz`)).text(), /true/, "the standby is ready (it serves admission)");
  const lease = (await stack.sim.cluster.get({ apiVersion: "coordination.k8s.io/v1", kind: "Lease" }, "default", "edgeloop-relay")) as unknown as { spec: { holderIdentity: string } };
  assert.equal(lease.spec.holderIdentity, "relay-a");

  await a.stop(); // releases the lease
  await waitFor("relay-b to lead", () => b.engine.leading, Boolean, { timeoutMs: 5_000 });
  await stack.sim.cluster.create(parent("two"));
  await waitForObject(stack.sim.cluster, CM, "default", "two-mirror");

  // relay-b crashes: it neither reconciles nor releases; relay-c waits for the lease to lapse.
  const c = await replica("relay-c");
  await b.engine.stop();
  await b.elector?.stop({ release: false });
  await stack.sim.cluster.create(parent("three"));
  await waitFor("relay-c to take over the lapsed lease", () => c.engine.leading, Boolean, { timeoutMs: 10_000 });
  await waitForObject(stack.sim.cluster, CM, "default", "three-mirror");
  const transitions = (await stack.sim.cluster.get({ apiVersion: "coordination.k8s.io/v1", kind: "Lease" }, "default", "edgeloop-relay")) as unknown as { spec: { leaseTransitions: number; holderIdentity: string } };
  assert.equal(transitions.spec.holderIdentity, "relay-c");
  assert.equal(transitions.spec.leaseTransitions, 2);
});

test("a replica that cannot take its API port fails to start and leaves nothing running: its ops port is free again", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  try {
    const opsPort = await freePort();
    const start = startRelay({ workerUrl: stack.worker.url, secret: stack.secret, kubeconfigPath: stack.sim.kubeconfigPath ?? "", opsPort, logLevel: "error", api: { port: (taken.address() as AddressInfo).port } });
    await assert.rejects(start, /EADDRINUSE/);
    assert.equal(await portFree(opsPort), true, "the ops server was closed with the rest");
  } finally {
    taken.close();
  }
});
