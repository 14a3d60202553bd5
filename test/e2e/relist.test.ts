/**
 * A deletion the relay's watch never saw: a Sedna training pod is deleted while every
 * watch is down and the API server's event history is compacted past it, so the relay's
 * pod informer must relist. The relist delivers the pod as deleted (its last known state),
 * its job is reconciled, and self-heal creates the replacement, once.
 *
 * On the sim the fault is injected in one turn of the event loop. On a real control plane
 * etcd is compacted and kube-apiserver restarted: every watch ends, and resumes from a
 * resourceVersion neither etcd nor the new API server's watch cache holds (410 Gone); the
 * pod is deleted as soon as the API server is back, while the relay is still reconnecting
 * (compaction alone ends no watch: the API server serves open watches from its cache).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError } from "../../sim/contract.ts";
import { e2eStack, type E2EStack } from "./harness.ts";
import { waitFor } from "../../cli/wait.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const TRAIN = "federatedlearningjob.sedna.io/name=relist,federatedlearningjob.sedna.io/worker-type=train";
let stack: E2EStack;
/** The relay's `relisted` log lines: which informer, why, and what the new list lacked. */
const relisted: Record<string, unknown>[] = [];

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
  return ((await stack.cluster.list(POD, { namespace: "default", labelSelector: selector })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

async function podRelists(): Promise<number> {
  const text = await (await fetch(`${stack.relay.opsUrl}/metrics`)).text();
  return Number(/^edgeloop_relists_total\{informer="Pod\.v1\|\|",reason="expired"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Waits until the relay has nothing queued or in flight. */
async function relayIdle(): Promise<void> {
  await waitFor("the relay to be idle", async () => {
    const metrics = await (await fetch(`${stack.relay.opsUrl}/metrics`)).text();
    return /edgeloop_queue_depth 0\b/.test(metrics) && /edgeloop_queue_in_flight 0\b/.test(metrics) ? true : undefined;
  });
}

before(async () => {
  stack = await e2eStack({
    nodes: ["cloud", "edge1", "edge2"],
    log: (_level, msg, fields) => {
      if (msg === "relisted") relisted.push(fields ?? {});
    },
  });
  await stack.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "default" }, spec: { url: "/m", format: "pb" } } as KubeObject);
  for (const node of ["edge1", "edge2"]) {
    await stack.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
  }
});

after(async () => {
  await stack.stop();
});

/** Tries `attempt` every few milliseconds (the harness's waitFor backs off to 250 ms) until it gives a value, for 60 s at most. */
async function poll<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** How many API server restarts the real control plane gets for the deletion to land before the pod informer lists again. */
const ATTEMPTS = 6;
const POD_INFORMER = "Pod.v1||";

/**
 * Deletes `victim` where the relay's pod watch cannot see it, past the server's history;
 * false when the window closed first (on a real control plane: the pod informer had
 * listed again before the deletion could be sent).
 */
async function deleteUnseen(victim: Obj, seen: number): Promise<boolean> {
  if (stack.sim) {
    const store = stack.sim.cluster.store;
    // In one turn of the event loop, so no watch can resume in between: every watch ends,
    // the pod goes from storage, and the history is compacted past its deletion.
    stack.sim.closeWatches();
    store.commit("/pods", "DELETED", store.get("/pods", "default", victim.metadata.name)?.object ?? assert.fail("the victim is stored"));
    store.history.compact(store.resourceVersion);
    return true;
  }
  const controlPlane = stack.controlPlane ?? assert.fail("a cluster target has a control plane");
  await controlPlane.compactEtcd();
  const restarting = controlPlane.restartApiServer();
  // The first request the new API server answers deletes the pod: the relay, backing off
  // between reconnects, has most often not listed again by then.
  await poll("kube-apiserver to stop", () => stack.cluster.find(POD, "default", victim.metadata.name).then(() => undefined, (error: unknown) => (error instanceof ApiError ? undefined : true)));
  const sent = await poll("kube-apiserver to answer", () =>
    stack.cluster.delete(POD, "default", victim.metadata.name, { gracePeriodSeconds: 0 }).then(
      () => relisted.slice(seen).every((r) => r.informer !== POD_INFORMER),
      (error: unknown) => (error instanceof ApiError && error.code === 404 ? assert.fail(`${String(victim.metadata.name)} went before its deletion`) : undefined),
    ),
  );
  await restarting;
  return sent;
}

test("a training pod deleted while the relay's watches are down, past the server's history, is replaced after the relist", { timeout: 240_000 }, async (t) => {
  await stack.cluster.create(job());
  await waitFor("2 training pods", async () => ((await livePods(TRAIN)).length === 2 ? true : undefined));
  // On a real control plane the relay reconnects on its own schedule while kube-apiserver
  // restarts: a restart whose relist came before the deletion is tried again.
  for (let attempt = 1; ; attempt++) {
    const [victim] = await livePods(TRAIN);
    assert.ok(victim);
    const slot = victim.metadata.labels["edgeloop.dev/worker"] as string;
    // As in a job that has run a while: its status remembers the slot's pod.
    await waitFor("the status to remember the victim", async () => {
      const entries = ((await stack.cluster.get(FL, "default", "relist")) as Obj).status?.workerPods as Obj[] | undefined;
      return entries?.some((e) => e.pod === victim.metadata.name && e.uid === victim.metadata.uid) ? true : undefined;
    });
    const relists = await podRelists();
    const seen = relisted.length;
    const deleted = await deleteUnseen(victim, seen);
    await waitFor("the pod informer's relist", async () => ((await podRelists()) > relists ? true : undefined), 30_000);
    if (deleted) {
      const replacement = await waitFor("a replacement for the slot", async () => (await livePods(`${TRAIN},edgeloop.dev/worker=${slot}`)).find((p) => p.metadata.name !== victim.metadata.name), 30_000);
      assert.notEqual(replacement.metadata.uid, victim.metadata.uid);
      await relayIdle();
      assert.deepEqual((await livePods(`${TRAIN},edgeloop.dev/worker=${slot}`)).map((p) => p.metadata.name), [replacement.metadata.name], "replaced once");
    }
    const podRelist = relisted.slice(seen).filter((r) => r.informer === POD_INFORMER);
    assert.deepEqual(podRelist.map((r) => r.reason), ["expired"], "one relist, after 410 Gone");
    if (deleted && podRelist[0]?.deleted === 1) {
      t.diagnostic(`the relist found the deletion its watch never saw (attempt ${attempt})`);
      return;
    }
    assert.ok(stack.target === "cluster" && attempt < ATTEMPTS, `the pod informer's relist never found the deletion (attempt ${attempt}: ${JSON.stringify(podRelist)})`);
  }
});
