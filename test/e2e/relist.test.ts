/**
 * A deletion the relay's watch never saw: a Sedna training pod is deleted while every
 * watch is down and the API server's event history is compacted past it, so the relay's
 * pod informer must relist. The relist delivers the pod as deleted (its last known state),
 * its job is reconciled, and self-heal creates the replacement.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { testStack, waitFor } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };
const TRAIN = "federatedlearningjob.sedna.io/name=relist,federatedlearningjob.sedna.io/worker-type=train";
let stack: Stack;

function job(): KubeObject {
  const container = { name: "worker", image: "train:v1", env: [{ name: "exit_round", value: "3" }] };
  return {
    apiVersion: "sedna.io/v1alpha1",
    kind: "FederatedLearningJob",
    metadata: { name: "relist", namespace: "default" },
    spec: {
      aggregationWorker: { model: { name: "model" }, template: { spec: { nodeName: "cloud", terminationGracePeriodSeconds: 0, containers: [{ ...container, image: "agg:v1" }] } } },
      trainingWorkers: ["edge1", "edge2"].map((node) => ({ dataset: { name: `${node}-data` }, template: { spec: { nodeName: node, terminationGracePeriodSeconds: 0, containers: [container] } } })),
    },
  } as KubeObject;
}

async function livePods(selector: string): Promise<Obj[]> {
  return ((await stack.sim.cluster.list(POD, { namespace: "default", labelSelector: selector })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

async function podRelists(): Promise<number> {
  const text = await (await fetch(`${stack.relay.opsUrl}/metrics`)).text();
  return Number(/^edgeloop_relists_total\{informer="Pod\.v1\|\|",reason="expired"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

before(async () => {
  stack = await testStack({ nodes: ["cloud", "edge1", "edge2"] });
  await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "default" }, spec: { url: "/m", format: "pb" } } as KubeObject);
  for (const node of ["edge1", "edge2"]) {
    await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
  }
});

after(async () => {
  await stack.stop();
});

test("a training pod deleted while the relay's watches are down, past the server's history, is replaced after the relist", async () => {
  await stack.sim.cluster.create(job());
  await waitFor("2 training pods", async () => ((await livePods(TRAIN)).length === 2 ? true : undefined));
  const [victim] = await livePods(TRAIN);
  assert.ok(victim);
  const slot = victim.metadata.labels["edgeloop.dev/worker"] as string;
  const relists = await podRelists();
  const store = stack.sim.cluster.store;
  // In one turn of the event loop, so no watch can resume in between: every watch ends,
  // the pod goes from storage, and the history is compacted past its deletion.
  stack.sim.closeWatches();
  store.commit("/pods", "DELETED", store.get("/pods", "default", victim.metadata.name)?.object ?? assert.fail("the victim is stored"));
  store.history.compact(store.resourceVersion);
  await waitFor("the pod informer's relist", async () => ((await podRelists()) > relists ? true : undefined));
  const replacement = await waitFor("a replacement for the slot", async () => (await livePods(`${TRAIN},edgeloop.dev/worker=${slot}`)).find((p) => p.metadata.name !== victim.metadata.name));
  assert.notEqual(replacement.metadata.uid, victim.metadata.uid);
});
