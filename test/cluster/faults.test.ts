/**
 * Faults of a real control plane while edgeloop runs on it, each asserting the cluster
 * state that results: kube-apiserver restarted (nothing lost; pods deleted as it stops
 * and once it is back are replaced exactly once); etcd compacted and the API server
 * restarted, so that every watch of the relay resumes from a revision no longer held and
 * gets 410 Gone (compaction alone ends no watch: the API server serves open watches from
 * its watch cache) — what changed meanwhile is still acted on; the leading relay killed,
 * and the standby taking over through the real Lease and healing what happened while
 * nobody led. Only on a real control plane (`npm run test:cluster -- faults`); the sim's
 * counterparts are test/e2e/relist.test.ts and test/e2e/ha.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { startRelay, type RunningRelay } from "../../relay/index.ts";
import { ApiError } from "../../sim/contract.ts";
import { e2eStack, TARGET, type E2EStack } from "../e2e/harness.ts";
import { describePods, waitForObject } from "../support/cluster-waits.ts";
import { relayIdle } from "../support/relay-idle.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };
const CM = { apiVersion: "v1", kind: "ConfigMap" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const JOB = "faults";
const WORKERS = `federatedlearningjob.sedna.io/name=${JOB}`;
const TRAIN = `${WORKERS},federatedlearningjob.sedna.io/worker-type=train`;

let stack: E2EStack;
/** The relay's `relisted` log lines (informer, reason, what the new list lacked). */
const relisted: Record<string, unknown>[] = [];
/** Relays started besides the stack's, and the stack's own once killed: stopped after the tests. */
const extraRelays: RunningRelay[] = [];

/** A federated learning job whose workers end at once when deleted (no termination grace). */
function job(): KubeObject {
  const container = { name: "worker", image: "train:v1", env: [{ name: "exit_round", value: "3" }] };
  const template = (node: string, image: string): Obj => ({ spec: { nodeName: node, terminationGracePeriodSeconds: 0, containers: [{ ...container, image }] } });
  return {
    apiVersion: "sedna.io/v1alpha1",
    kind: "FederatedLearningJob",
    metadata: { name: JOB, namespace: "default" },
    spec: {
      aggregationWorker: { model: { name: "model" }, template: template("cloud", "agg:v1") },
      trainingWorkers: ["edge1", "edge2"].map((node) => ({ dataset: { name: `${node}-data` }, template: template(node, "train:v1") })),
    },
  } as KubeObject;
}

/** A parent of the `mirror` test controller (its child: `<name>-mirror`). */
function parent(name: string): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { a: "1" } } as KubeObject;
}

async function livePods(selector: string): Promise<Obj[]> {
  return ((await stack.cluster.list(POD, { namespace: "default", labelSelector: selector })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

/** The Recreated Events of the job naming `pod` as the one replaced. */
async function recreatedFor(pod: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace: "default" })).items as Obj[]).filter((e) => e.involvedObject?.name === JOB && e.reason === "Recreated" && String(e.message).includes(`pod ${pod} `));
}

async function metrics(relay = stack.relay): Promise<string> {
  return (await fetch(`${relay.opsUrl}/metrics`)).text();
}

/** Three workers, each Running. */
async function runningWorkers(): Promise<Obj[]> {
  return waitFor("3 running workers", () => livePods(WORKERS), (pods) => pods.length === 3 && pods.every((p) => p.status?.phase === "Running"), { timeoutMs: 30_000, describe: describePods });
}

/** The slot's only live pod, once it is not `victim` (a replacement), after the relay has settled. */
async function replacedOnce(victim: Obj, relay = stack.relay): Promise<Obj> {
  const slot = victim.metadata.labels["edgeloop.dev/worker"] as string;
  const selector = `${TRAIN},edgeloop.dev/worker=${slot}`;
  await waitFor(`a replacement for ${String(victim.metadata.name)}`, () => livePods(selector), (pods) => pods.some((p) => p.metadata.name !== victim.metadata.name), { timeoutMs: 60_000, describe: describePods });
  await relayIdle(relay);
  const pods = await livePods(selector);
  assert.equal(pods.length, 1, `one pod for worker ${slot}: ${pods.map((p) => p.metadata.name).join(", ")}`);
  const [replacement] = pods;
  assert.notEqual(replacement?.metadata.uid, victim.metadata.uid);
  const events = await recreatedFor(victim.metadata.name);
  assert.equal(events.length, 1, `one Recreated Event naming ${String(victim.metadata.name)}: ${JSON.stringify(events.map((e) => [e.metadata.creationTimestamp, e.message]))}`);
  assert.match(String(events[0]?.message), new RegExp(`worker ${slot} as pod ${String(replacement?.metadata.name)} `));
  return replacement as Obj;
}

/**
 * Waits until the job's status remembers each of `pods` as its slot's pod: what makes a
 * deletion whose event the relay loses (a plan refused while kube-apiserver restarts)
 * still a recreation, as in a job that has run for a while.
 */
async function remembered(pods: readonly Obj[]): Promise<void> {
  await waitForObject(stack.cluster, FL, "default", JOB, (j) => pods.every((p) => (((j as Obj).status?.workerPods ?? []) as Obj[]).some((e) => e.pod === p.metadata.name && e.uid === p.metadata.uid)), 30_000);
}

/** Waits until every parent named has its child. */
async function mirrored(names: readonly string[], relay = stack.relay): Promise<void> {
  await waitFor(
    `${names.length} parents mirrored (those not yet)`,
    async () => {
      const have = new Set((await stack.cluster.list(CM, { namespace: "default", labelSelector: "edgeloop.test/mirror-of" })).items.map((m) => m.metadata.name));
      return names.filter((n) => !have.has(`${n}-mirror`));
    },
    (missing) => missing.length === 0,
    { timeoutMs: 60_000 },
  );
  await relayIdle(relay);
}

before(async () => {
  assert.equal(TARGET, "cluster", "these faults are a real control plane's: run npm run test:cluster -- faults");
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
  await stack.cluster.create(job());
  await runningWorkers();
});

after(async () => {
  for (const relay of extraRelays) await relay.stop().catch(() => undefined);
  await stack?.stop();
});

test("kube-apiserver restarted while edgeloop runs: nothing is lost, and pods deleted as it stops and once it is back are replaced exactly once", { timeout: 180_000 }, async () => {
  const controlPlane = stack.controlPlane ?? assert.fail("a real control plane");
  const [first, second] = await livePods(TRAIN);
  assert.ok(first && second);
  await remembered([first, second]);
  const before = Array.from({ length: 10 }, (_, i) => `before-restart-${i}`);
  const afterwards = Array.from({ length: 10 }, (_, i) => `after-restart-${i}`);
  await Promise.all(before.map((name) => stack.cluster.create(parent(name))));
  // The relay's answer to this deletion (a replacement, an Event, a status) meets the API server stopping.
  await stack.cluster.delete(POD, "default", first.metadata.name, { gracePeriodSeconds: 0 });
  await controlPlane.restartApiServer();
  // Back: the relay is still reconnecting its watches.
  await stack.cluster.delete(POD, "default", second.metadata.name, { gracePeriodSeconds: 0 });
  await Promise.all(afterwards.map((name) => stack.cluster.create(parent(name))));

  await mirrored([...before, ...afterwards]);
  await replacedOnce(first);
  await replacedOnce(second);
  await runningWorkers();
  assert.equal(stack.relay.engine.leading, true, "the relay kept its Lease across the restart");
  await waitForObject(stack.cluster, FL, "default", JOB, (j) => (j as Obj).status?.active === 3 && (j as Obj).status?.phase === "Running");
});

test("etcd compacted and kube-apiserver restarted: every watch gets 410 Gone and relists; what changed meanwhile is acted on", { timeout: 180_000 }, async () => {
  const controlPlane = stack.controlPlane ?? assert.fail("a real control plane");
  const old = await livePods(WORKERS);
  const oldHashes = new Set(old.map((p) => p.metadata.labels["edgeloop.dev/spec-hash"]));
  const current = (await stack.cluster.get(FL, "default", JOB)) as Obj;
  const workers = structuredClone(current.spec.trainingWorkers) as Obj[];
  for (const worker of workers) worker.template.spec.containers[0].env = [{ name: "exit_round", value: "5" }];
  const child = await stack.cluster.get(CM, "default", "before-restart-0-mirror");
  const seen = relisted.length;

  const revision = await controlPlane.compactEtcd();
  const restarting = controlPlane.restartApiServer();
  // Meanwhile, from the new API server's first answer, while the relay reconnects: a spec
  // update, a new parent, a child deleted.
  // Every few milliseconds, not backing off: the writes must land before the relay, reconnecting, lists again.
  const often = { timeoutMs: 60_000, intervalMs: 5 };
  await waitFor("kube-apiserver to stop (whether it answers)", () => stack.cluster.find(CM, "default", "before-restart-0-mirror").then(() => "answers", (error: unknown) => (error instanceof ApiError ? "answers" : "down")), (state) => state === "down", often);
  // Until the CRD is served again, its path answers 404.
  const update = await waitFor(
    "the spec update (its outcome)",
    () => stack.cluster.patch(FL, "default", JOB, { spec: { trainingWorkers: workers } }, "merge").then((object) => ({ object, error: undefined }), (error: unknown) => ({ object: undefined, error: String(error) })),
    (outcome) => outcome.object !== undefined,
    often,
  );
  const updated = update.object as Obj;
  await stack.cluster.create(parent("after-compaction"));
  await stack.cluster.delete(CM, "default", "before-restart-0-mirror");
  await restarting;

  const informers = ["Pod.v1||", "ConfigMap.v1||", "FederatedLearningJob.sedna.io/v1alpha1||"];
  await waitFor("every informer's relist (the relists)", () => relisted.slice(seen), (since) => informers.every((i) => since.some((r) => r.informer === i)), { timeoutMs: 60_000 });
  for (const informer of informers) {
    assert.deepEqual(relisted.slice(seen).filter((r) => r.informer === informer).map((r) => r.reason), ["expired"], `${informer}: one relist, after 410 Gone (etcd compacted at revision ${revision})`);
  }
  // The spec update rolled every training pod (the aggregation worker's spec is unchanged).
  await waitFor(
    "the training pods of the new spec",
    () => livePods(TRAIN),
    (pods) => pods.length === 2 && pods.every((p) => !oldHashes.has(p.metadata.labels["edgeloop.dev/spec-hash"]) && p.spec.containers[0].env.some((e: Obj) => e.name === "exit_round" && e.value === "5")),
    { timeoutMs: 60_000, describe: describePods },
  );
  await waitForObject(stack.cluster, FL, "default", JOB, (j) => (j as Obj).status?.observedGeneration === updated.metadata.generation, 30_000);
  await waitForObject(stack.cluster, CM, "default", "after-compaction-mirror", () => true, 30_000);
  const healed = await waitForObject(stack.cluster, CM, "default", "before-restart-0-mirror", (c) => c.metadata.uid !== child.metadata.uid, 30_000);
  await relayIdle(stack.relay);
  assert.equal((await stack.cluster.get(CM, "default", "before-restart-0-mirror")).metadata.uid, healed.metadata.uid, "healed once");
  await runningWorkers();
});

test("the leading relay killed: the standby takes over through the real Lease and heals what happened meanwhile", { timeout: 180_000 }, async () => {
  const installed = stack.installed ?? assert.fail("the relay runs as installed (its ServiceAccount, leader-elected)");
  const leader = stack.relay;
  assert.equal(leader.engine.leading, true);
  const standby = await startRelay({
    workerUrl: stack.worker.url,
    secret: stack.secret,
    kubeconfigPath: installed.relayKubeconfigPath,
    opsPort: 0,
    logLevel: "error",
    leaderElection: { namespace: installed.lease.namespace, name: installed.lease.name, identity: "relay-standby", retrySeconds: 0.5 },
  });
  extraRelays.push(standby);
  const leaseBefore = (await stack.cluster.get(LEASE, installed.lease.namespace, installed.lease.name)) as Obj;
  assert.equal(leaseBefore.spec.holderIdentity, installed.identity);
  await stack.cluster.create(parent("standing-by"));
  await mirrored(["standing-by"]);
  assert.equal(standby.engine.leading, false, "the standby does not reconcile while the leader holds the Lease");

  // Killed: it neither reconciles nor releases the Lease, which lapses on its own. The
  // stack stops the standby from now on (its front, still the killed one's, serves the
  // webhooks as the Service would route them to a standby's).
  await leader.engine.stop();
  await leader.elector?.stop({ release: false });
  extraRelays.splice(extraRelays.indexOf(standby), 1, leader);
  stack.relay = standby;
  const [victim] = await livePods(TRAIN);
  assert.ok(victim);
  await remembered([victim]);
  await stack.cluster.delete(POD, "default", victim.metadata.name, { gracePeriodSeconds: 0 });
  await stack.cluster.create(parent("leaderless"));
  const child = await stack.cluster.get(CM, "default", "standing-by-mirror");
  await stack.cluster.delete(CM, "default", "standing-by-mirror");

  const durationSeconds = Number(leaseBefore.spec.leaseDurationSeconds);
  await waitFor("the standby to take over the lapsed Lease", () => standby.engine.leading, Boolean, { timeoutMs: (durationSeconds + 15) * 1000 });
  const lease = (await stack.cluster.get(LEASE, installed.lease.namespace, installed.lease.name)) as Obj;
  assert.equal(lease.spec.holderIdentity, "relay-standby");
  assert.equal(lease.spec.leaseTransitions, (leaseBefore.spec.leaseTransitions ?? 0) + 1);
  assert.match(await metrics(standby), /^leader_election_master_status\{name="edgeloop-relay"\} 1$/m);

  await replacedOnce(victim, standby);
  await mirrored(["leaderless"], standby);
  const healed = await waitForObject(stack.cluster, CM, "default", "standing-by-mirror", (c) => c.metadata.uid !== child.metadata.uid, 30_000);
  await relayIdle(standby);
  assert.equal((await stack.cluster.get(CM, "default", "standing-by-mirror")).metadata.uid, healed.metadata.uid, "healed once");
  await runningWorkers();
});
