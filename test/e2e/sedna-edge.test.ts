/**
 * Sedna's edge channel end to end (issue 26, ADR 0028): LocalControllers written from the
 * upstream protocol (test/support/local-controller.ts) dial the relay's `sedna-gm`
 * channel as they would dial upstream's GM; each holds what its node must (the FL jobs
 * whose training workers run there, the Datasets of its node, the Models those jobs use),
 * and its status messages reach the cluster as upstream's GM writes them (one `Training`
 * condition, the Model's metrics, the Dataset's sample count). A status about an object
 * not sent to the node is refused with a Warning Event; LCs that reconnect, and a relay
 * that restarts, bring every LC back to the current state.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { waitForGone, waitForObject } from "../support/cluster-waits.ts";
import { relayIdle } from "../support/relay-idle.ts";
import { metricSum } from "../bench/util.ts";
import { LocalController, startLocalControllers } from "../support/local-controller.ts";
import { upstreamGmAddress, upstreamLocalControllerDaemonSet } from "../support/local-controller-manifest.ts";
import { createNamespaces, e2eStack, type E2EStack } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

const FIXTURES = join(import.meta.dirname, "../../functions/controllers/sedna/fixtures");
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const MODEL = { apiVersion: "sedna.io/v1alpha1", kind: "Model" };
const DATASET = { apiVersion: "sedna.io/v1alpha1", kind: "Dataset" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const DAEMONSET = { apiVersion: "apps/v1", kind: "DaemonSet" };
const NODES = ["cloud", "edge1", "edge2"] as const;
const JOB = "surface-defect-detection";
const AGG_MODEL = "surface-defect-detection-model";
/** The LCs' pause after a failed dial: upstream's 5 s would only slow the relay-restart test down. */
const RETRY_MS = 200;
/** How long an LC may take to hold what it must (a Worker round trip or two; seconds on a real control plane). */
const HOLD_MS = 20_000;

let stack: E2EStack;
let lcs: Record<(typeof NODES)[number], LocalController>;

/** A job as a failed wait shows it: its conditions. */
const conditionsOf = (job: KubeObject | undefined): string => JSON.stringify((job as Obj | undefined)?.status?.conditions);

/** Waits until the job's conditions satisfy `ok`. */
async function waitForJob(name: string, ok: (conditions: Obj[]) => boolean): Promise<Obj> {
  return (await waitFor(`FederatedLearningJob ${name}'s conditions`, () => stack.cluster.find(FL, "default", name), (job) => job !== undefined && ok(((job as Obj).status?.conditions ?? []) as Obj[]), { timeoutMs: HOLD_MS, describe: conditionsOf })) as Obj;
}

/** The channel's `host:port` on this stack (endpoints.json's `sednaGM`). */
function gmAddress(): string {
  const address = stack.channels["sedna-gm"];
  if (!address) throw new Error("the stack serves no sedna-gm channel (stack.channels['sedna-gm'])");
  return address;
}

function fixture(file: string): Obj {
  const [document] = parseAllDocuments(readFileSync(join(FIXTURES, file), "utf8"));
  const object = document?.toJS() as Obj;
  return { ...object, metadata: { namespace: "default", ...object.metadata } };
}

/** The upstream FL job, renamed, its training workers on `nodes`. */
function flJob(name: string, nodes: readonly string[]): KubeObject {
  const job = structuredClone(fixture("federatedlearningjob_v1alpha1.yaml"));
  job.metadata = { name, namespace: "default" };
  const template = job.spec.trainingWorkers[0];
  job.spec.trainingWorkers = nodes.map((node) => ({ ...structuredClone(template), template: { ...structuredClone(template.template), spec: { ...structuredClone(template.template.spec), nodeName: node } } }));
  return job as KubeObject;
}

function model(name: string): KubeObject {
  return { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name, namespace: "default" }, spec: { url: `/models/${name}`, format: "pb" } } as KubeObject;
}

function dataset(name: string, nodeName: string): KubeObject {
  return { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name, namespace: "default" }, spec: { url: "/data/train.txt", format: "txt", nodeName } } as KubeObject;
}

const holdsJob = (name: string) => (lc: LocalController) => lc.holding("federatedlearningjob", "default", name) !== undefined;
const holdsNoJob = (name: string) => (lc: LocalController) => lc.holding("federatedlearningjob", "default", name) === undefined;

/** Upstream frames whose Worker call or actions failed (`edgeloop_channel_frames_total{direction="up",result="failed"}`). */
async function upFramesFailed(): Promise<number> {
  return metricSum(await (await fetch(`${stack.relay.opsUrl}/metrics`)).text(), "edgeloop_channel_frames_total", { channel: "sedna-gm", direction: "up", result: "failed" });
}

async function warnings(name: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace: "default" })).items as Obj[]).filter((e) => e.involvedObject?.name === name && e.type === "Warning");
}

before(async () => {
  stack = await e2eStack({ nodes: [...NODES, "edge3"] });
  for (const object of [model(AGG_MODEL), dataset("edge1-surface-defect-detection-dataset", "edge1"), dataset("edge2-surface-defect-detection-dataset", "edge2")]) await stack.cluster.create(object);
  const [cloud, edge1, edge2] = await startLocalControllers(gmAddress(), NODES, { retryIntervalMs: RETRY_MS });
  if (!cloud || !edge1 || !edge2) throw new Error("three LCs");
  lcs = { cloud, edge1, edge2 };
});

after(async () => {
  for (const lc of Object.values(lcs ?? {})) await lc.stop();
  await stack?.stop();
});

test("the upstream LC DaemonSet dials the Service the sedna-gm channel declares; on a real control plane it applies unchanged", async () => {
  const upstream = upstreamGmAddress();
  assert.equal(upstream.value, "gm.sedna:9000");
  const channel = stack.relay.engine.manifest.controllers.flatMap((c) => c.channels).find((c) => c.name === "sedna-gm");
  assert.ok(channel, "a controller declares the sedna-gm channel");
  assert.deepEqual({ service: channel.service?.name, namespace: channel.service?.namespace, port: channel.port, header: channel.peerHeader }, { service: upstream.service, namespace: upstream.namespace, port: upstream.port, header: "Node-Name" });
  const daemonSet = upstreamLocalControllerDaemonSet() as Obj;
  assert.deepEqual(daemonSet.spec.template.spec.containers[0].resources, { requests: { memory: "32Mi", cpu: "100m" }, limits: { memory: "128Mi" } }, "rendered with the chart's values");
  if (stack.target === "cluster") {
    // Applied unchanged; kube-controller-manager runs the LC on every node (kwok's kubelets report them running). The sim serves no DaemonSets.
    await createNamespaces(stack, ["sedna"]);
    await stack.cluster.create(daemonSet as KubeObject);
    await waitForObject(stack.cluster, DAEMONSET, "sedna", "lc", (d) => (d as Obj).status?.numberReady === 4, 60_000);
  }
  // The Service gm.sedna:9000 itself is install-relay's (an ExternalName to the relay's; scripts/lib/install/objects.test.ts): a relay run on this machine has none.
});

test("an FL job reaches the LCs of its training workers' nodes only; so do its Model and each node's Dataset", async () => {
  await stack.cluster.create(fixture("federatedlearningjob_v1alpha1.yaml") as KubeObject);
  await lcs.edge1.until("the FL job", holdsJob(JOB), HOLD_MS);
  await lcs.edge2.until("the FL job", holdsJob(JOB), HOLD_MS);
  const held = lcs.edge1.holding("federatedlearningjob", "default", JOB) as Obj;
  assert.equal(held.metadata.name, JOB);
  assert.deepEqual(
    held.spec.trainingWorkers.map((w: Obj) => w.template.spec.nodeName),
    ["edge1", "edge2"],
    "the whole job, as the GM sends it",
  );
  for (const lc of [lcs.edge1, lcs.edge2]) await lc.until("the job's Model", (c) => c.holding("model", "default", AGG_MODEL) !== undefined, HOLD_MS);
  await lcs.edge1.until("its Dataset", (c) => c.holding("dataset", "default", "edge1-surface-defect-detection-dataset") !== undefined, HOLD_MS);
  await lcs.edge2.until("its Dataset", (c) => c.holding("dataset", "default", "edge2-surface-defect-detection-dataset") !== undefined, HOLD_MS);
  assert.equal(lcs.edge1.holding("dataset", "default", "edge2-surface-defect-detection-dataset"), undefined, "another node's Dataset");
  assert.equal(lcs.cloud.held("federatedlearningjob").size, 0, "the aggregation worker's node runs no training worker");
  assert.equal(lcs.cloud.held("dataset").size, 0);
  for (const lc of Object.values(lcs)) assert.equal(lc.counters.unknownOperations, 0, `${lc.nodeName}: only insert and delete, which the LC understands`);
});

test("a spec change is sent again as an insert", async () => {
  const inserts = lcs.edge1.counters.inserts;
  const job = (await stack.cluster.get(FL, "default", JOB)) as Obj;
  const workers = structuredClone(job.spec.trainingWorkers) as Obj[];
  for (const worker of workers) worker.template.spec.containers[0].env.push({ name: "epochs_extra", value: "2" });
  await stack.cluster.patch(FL, "default", JOB, { spec: { trainingWorkers: workers } }, "merge");
  const changed = (lc: LocalController): boolean => ((lc.holding("federatedlearningjob", "default", JOB) as Obj | undefined)?.spec.trainingWorkers[0].template.spec.containers[0].env as Obj[]).some((e) => e.name === "epochs_extra");
  await lcs.edge1.until("the changed job", changed, HOLD_MS);
  await lcs.edge2.until("the changed job", changed, HOLD_MS);
  assert.ok(lcs.edge1.counters.inserts > inserts);
  assert.equal(lcs.edge1.counters.unknownOperations, 0, "never `update`, which the LC refuses");
  // The new spec's pods roll; the reports below come once that has settled (a report during a roll: the last test but one).
  await waitForObject(stack.cluster, FL, "default", JOB, (j) => (j as Obj).status?.observedGeneration === (j as Obj).metadata.generation && (j as Obj).status?.active === 3, HOLD_MS);
  await relayIdle(stack.relay);
});

test("a training node's status: ONE Training condition with its round, the aggregation Model's metrics and updateTime", async () => {
  const metrics = { accuracy: 0.93, loss: "0.12" };
  lcs.edge1.reportTraining({ namespace: "default", job: JOB, round: 3, updateTime: "2026-11-27T13:00:00Z", models: [{ format: "pb", url: "/models/r3", metrics }] });
  const training = (job: Obj): Obj[] => ((job.status?.conditions ?? []) as Obj[]).filter((c) => c.type === "Training");
  await waitForJob(JOB, (conditions) => training({ status: { conditions } }).some((c) => c.message === "Round 3 reaches at 2026-11-27T13:00:00Z"));
  const written = (await waitForObject(stack.cluster, MODEL, "default", AGG_MODEL, (m) => ((m as Obj).status?.metrics ?? []).length === 2, HOLD_MS)) as Obj;
  assert.deepEqual([...(written.status.metrics as Obj[])].sort((a, b) => String(a.key).localeCompare(String(b.key))), [
    { key: "accuracy", value: "0.93" },
    { key: "loss", value: "0.12" },
  ]);
  assert.ok(!Number.isNaN(Date.parse(String(written.status.updateTime))), "updateTime set");

  lcs.edge2.reportTraining({ namespace: "default", job: JOB, round: 4, updateTime: "2026-11-27T13:05:00Z", models: [{ format: "pb", url: "/models/r4", metrics: { accuracy: 0.95 } }] });
  const job = await waitForJob(JOB, (conditions) => training({ status: { conditions } }).some((c) => c.message === "Round 4 reaches at 2026-11-27T13:05:00Z"));
  assert.equal(training(job).length, 1, `one Training condition, updated in place: ${JSON.stringify(job.status.conditions)}`);
  assert.equal(training(job)[0]?.status, "True");
  await waitForObject(stack.cluster, MODEL, "default", AGG_MODEL, (m) => JSON.stringify((m as Obj).status?.metrics) === JSON.stringify([{ key: "accuracy", value: "0.95" }]), HOLD_MS);
});

test("a round reported while the job's pods roll (its status being written) is not lost: its actions apply", async () => {
  const failedBefore = await upFramesFailed();
  const job = (await stack.cluster.get(FL, "default", JOB)) as Obj;
  const workers = structuredClone(job.spec.trainingWorkers) as Obj[];
  for (const worker of workers) worker.template.spec.containers[0].env.push({ name: "epochs_more", value: "3" });
  await stack.cluster.patch(FL, "default", JOB, { spec: { trainingWorkers: workers } }, "merge");
  const changed = (lc: LocalController): boolean => JSON.stringify(lc.holding("federatedlearningjob", "default", JOB)).includes("epochs_more");
  await lcs.edge1.until("the changed job", changed, HOLD_MS);
  lcs.edge1.reportTraining({ namespace: "default", job: JOB, round: 5, updateTime: "2026-11-27T13:10:00Z", models: [{ metrics: { accuracy: 0.96 } }] });
  await waitForObject(stack.cluster, MODEL, "default", AGG_MODEL, (m) => JSON.stringify((m as Obj).status?.metrics) === JSON.stringify([{ key: "accuracy", value: "0.96" }]), HOLD_MS);
  await waitForObject(stack.cluster, FL, "default", JOB, (j) => (j as Obj).status?.observedGeneration === (j as Obj).metadata.generation && (j as Obj).status?.active === 3, HOLD_MS);
  await relayIdle(stack.relay);
  // The round's condition may since have given way to the roll's own (workers not running: a stop replaces a round), but it was written, not dropped.
  assert.equal(await upFramesFailed(), failedBefore, "no frame's actions failed to apply (a conditional status write refused 409 and never retried is a report lost)");
  const training = ((await stack.cluster.get(FL, "default", JOB)) as Obj).status.conditions.filter((c: Obj) => c.type === "Training");
  assert.equal(training.length, 1);
});

test("ten rounds back to back from one node: every report applies, in order; the last one is what the condition tells", async () => {
  await relayIdle(stack.relay);
  const failedBefore = await upFramesFailed();
  for (let round = 11; round <= 20; round++) lcs.edge1.reportTraining({ namespace: "default", job: JOB, round, updateTime: `2026-11-27T14:${round}:00Z`, models: [{ metrics: { round } }] });
  const job = await waitForJob(JOB, (conditions) => conditions.some((c) => c.type === "Training" && c.message === "Round 20 reaches at 2026-11-27T14:20:00Z"));
  assert.equal((job.status.conditions as Obj[]).filter((c) => c.type === "Training").length, 1);
  await waitForObject(stack.cluster, MODEL, "default", AGG_MODEL, (m) => JSON.stringify((m as Obj).status?.metrics) === JSON.stringify([{ key: "round", value: "20" }]), HOLD_MS);
  assert.equal(await upFramesFailed(), failedBefore, "no report's actions failed to apply (each conflict decided again from the newer job)");
});

test("a Dataset's sample count from its node's LC reaches its status", async () => {
  lcs.edge1.reportDatasetSamples("default", "edge1-surface-defect-detection-dataset", 120);
  const written = (await waitForObject(stack.cluster, DATASET, "default", "edge1-surface-defect-detection-dataset", (d) => (d as Obj).status?.numberOfSamples === 120, HOLD_MS)) as Obj;
  assert.ok(written.status.updateTime, "updateTime defaulted, as upstream's GM does");
});

test("a status about an object not sent to the node is refused with a Warning Event; a malformed frame closes no other node's socket", async () => {
  await relayIdle(stack.relay);
  const before = (await stack.cluster.get(FL, "default", JOB)) as Obj;
  const edge1Connects = lcs.edge1.counters.connects;
  const edge2Connects = lcs.edge2.counters.connects;
  // The cloud node runs no training worker of the job: it was never sent it.
  lcs.cloud.reportTraining({ namespace: "default", job: JOB, round: 99, updateTime: "2026-11-27T14:00:00Z", models: [{ metrics: { accuracy: 0.01 } }] });
  lcs.cloud.sendRaw("{this is not a message");
  lcs.cloud.send({ namespace: "default", resourceKind: "dataset", resourceName: "edge2-surface-defect-detection-dataset" }, { numberOfSamples: 1 });
  const [warning] = await waitFor("a Warning Event on the job", () => warnings(JOB), (events) => events.length > 0, { timeoutMs: HOLD_MS });
  assert.equal(warning?.involvedObject.kind, "FederatedLearningJob");
  assert.match(String(warning?.message), /cloud/, "the Event names the node that sent it");
  await waitFor("a Warning Event on the other node's Dataset", () => warnings("edge2-surface-defect-detection-dataset"), (events) => events.length > 0, { timeoutMs: HOLD_MS });
  const after = (await stack.cluster.get(FL, "default", JOB)) as Obj;
  assert.deepEqual(after.status.conditions, before.status.conditions, "the refused round changed nothing");
  assert.notEqual(((await stack.cluster.get(DATASET, "default", "edge2-surface-defect-detection-dataset")) as Obj).status?.numberOfSamples, 1);
  // The other nodes kept their sockets, and still receive.
  assert.equal(lcs.edge1.counters.connects, edge1Connects);
  assert.equal(lcs.edge2.counters.connects, edge2Connects);
  assert.ok(lcs.edge1.connected && lcs.edge2.connected);
  await stack.cluster.create(flJob("after-refusal", ["edge1"]));
  await lcs.edge1.until("a job created after the refusal", holdsJob("after-refusal"), HOLD_MS);
  assert.equal(lcs.edge1.counters.connects, edge1Connects);
});

test("deleting the job sends delete to its nodes", async () => {
  await stack.cluster.delete(FL, "default", JOB);
  await waitForGone(stack.cluster, FL, "default", JOB, HOLD_MS);
  await lcs.edge1.until("the job deleted", holdsNoJob(JOB), HOLD_MS);
  await lcs.edge2.until("the job deleted", holdsNoJob(JOB), HOLD_MS);
  assert.ok(lcs.edge2.received.some((m) => m.header.operation === "delete" && m.header.resourceName === JOB && m.header.resourceKind === "federatedlearningjob"));
});

test("an LC that reconnects gets its whole state and the deletions it missed", async () => {
  await stack.cluster.create(flJob("fl-gone", ["edge2"]));
  await lcs.edge2.until("fl-gone", holdsJob("fl-gone"), HOLD_MS);
  await lcs.edge2.stop();
  await stack.cluster.delete(FL, "default", "fl-gone");
  await stack.cluster.create(flJob("fl-new", ["edge2"]));
  await waitForGone(stack.cluster, FL, "default", "fl-gone", HOLD_MS);
  assert.ok(holdsJob("fl-gone")(lcs.edge2), "offline: it still holds the deleted job");
  lcs.edge2.start();
  await lcs.edge2.until("fl-new, and fl-gone deleted", (lc) => holdsJob("fl-new")(lc) && holdsNoJob("fl-gone")(lc), HOLD_MS);
  assert.ok(lcs.edge2.holding("dataset", "default", "edge2-surface-defect-detection-dataset"), "its Dataset too");
  // A new LC process on the node, holding nothing (one LC per node: the old one is stopped first, else each socket replaces the other's): the whole state.
  await lcs.edge2.stop();
  const fresh = new LocalController({ gmAddress: gmAddress(), nodeName: "edge2", retryIntervalMs: RETRY_MS }).start();
  try {
    await fresh.until("the whole state of edge2", (lc) => holdsJob("fl-new")(lc) && lc.holding("dataset", "default", "edge2-surface-defect-detection-dataset") !== undefined && lc.holding("model", "default", AGG_MODEL) !== undefined, HOLD_MS);
    assert.equal(fresh.holding("federatedlearningjob", "default", "fl-gone"), undefined);
  } finally {
    await fresh.stop();
  }
  lcs.edge2.start();
  await lcs.edge2.until("connected", (lc) => lc.connected, HOLD_MS);
});

test("a relay restart: every LC reconnects and holds the current state, changes made while it was down included", async () => {
  const connects = Object.fromEntries(Object.values(lcs).map((lc) => [lc.nodeName, lc.counters.connects]));
  await stack.relay.stop();
  await Promise.all(Object.values(lcs).map((lc) => lc.until("disconnected", (c) => !c.connected, HOLD_MS)));
  await stack.cluster.create(flJob("while-down", ["edge1", "edge2"]));
  await stack.cluster.delete(FL, "default", "fl-new");
  await stack.cluster.create(dataset("edge1-late-dataset", "edge1"));
  await stack.restartRelay();
  for (const lc of Object.values(lcs)) await lc.until("reconnected", (c) => c.connected && c.counters.connects > (connects[c.nodeName] ?? 0), HOLD_MS);
  await lcs.edge1.until("while-down and the late Dataset", (lc) => holdsJob("while-down")(lc) && lc.holding("dataset", "default", "edge1-late-dataset") !== undefined && holdsJob("after-refusal")(lc), HOLD_MS);
  await lcs.edge2.until("while-down, fl-new deleted", (lc) => holdsJob("while-down")(lc) && holdsNoJob("fl-new")(lc), HOLD_MS);
  assert.equal(lcs.cloud.held("federatedlearningjob").size, 0);
  // And the channel works both ways after the restart (once the new job's workers run: a report during their start is the roll test's case).
  await waitForObject(stack.cluster, FL, "default", "while-down", (j) => (j as Obj).status?.active === 3 && (j as Obj).status?.phase === "Running", HOLD_MS);
  await relayIdle(stack.relay);
  lcs.edge1.reportTraining({ namespace: "default", job: "while-down", round: 1, updateTime: "2026-11-27T15:00:00Z" });
  await waitForJob("while-down", (conditions) => conditions.some((c) => c.type === "Training" && c.message === "Round 1 reaches at 2026-11-27T15:00:00Z"));
});
