/**
 * Sedna end to end on the local stack, with the upstream manifests unchanged: create,
 * heal (pod, Deployment, Service) exactly once, graceful and foreground deletion, cascade,
 * spec updates, completion and failure.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { DEFAULT_START_NODES } from "../../sim/flags.ts";
import { describePods, waitForGone, waitForObject } from "../support/cluster-waits.ts";
import { relayIdle } from "../support/relay-idle.ts";
import { e2eStack, type E2EStack } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

// The upstream Sedna manifests, byte-identical (their sources: functions/controllers/sedna/fixtures/SOURCES.md).
const FIXTURES = join(import.meta.dirname, "../../functions/controllers/sedna/fixtures");
const POD = { apiVersion: "v1", kind: "Pod" };
const SERVICE = { apiVersion: "v1", kind: "Service" };
const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const JI = { apiVersion: "sedna.io/v1alpha1", kind: "JointInferenceService" };
const EVENT = { apiVersion: "v1", kind: "Event" };

let stack: E2EStack;

/** An upstream manifest as `kubectl apply` sends it: in the context's namespace (the manifests name none). */
function fixture(file: string): KubeObject {
  const [document] = parseAllDocuments(readFileSync(join(FIXTURES, file), "utf8"));
  const object = document?.toJS() as KubeObject;
  return { ...object, metadata: { namespace: "default", ...object.metadata } };
}

function model(name: string): KubeObject {
  return { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name, namespace: "default" }, spec: { url: `/models/${name}`, format: "pb" } } as KubeObject;
}

function dataset(name: string, nodeName: string): KubeObject {
  return { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name, namespace: "default" }, spec: { url: "/data/train.txt", format: "txt", nodeName } } as KubeObject;
}

/** The FL fixture, renamed, optionally with a pod-template annotation on every worker. */
function flJob(name: string, annotations?: Record<string, string>, restartPolicy?: string): KubeObject {
  const job = structuredClone(fixture("federatedlearningjob_v1alpha1.yaml")) as Obj;
  job.metadata = { name, namespace: "default" };
  for (const worker of [job.spec.aggregationWorker, ...job.spec.trainingWorkers]) {
    if (annotations) worker.template.metadata = { annotations };
    if (restartPolicy) worker.template.spec.restartPolicy = restartPolicy;
  }
  return job as KubeObject;
}

async function livePods(selector: string): Promise<Obj[]> {
  return ((await stack.cluster.list(POD, { namespace: "default", labelSelector: selector })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

async function events(name: string, reason: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace: "default" })).items as Obj[]).filter((e) => e.involvedObject?.name === name && e.reason === reason);
}

before(async () => {
  stack = await e2eStack({ nodes: DEFAULT_START_NODES.split(",") });
  for (const object of [
    model("surface-defect-detection-model"),
    dataset("edge1-surface-defect-detection-dataset", "edge1"),
    dataset("edge2-surface-defect-detection-dataset", "edge2"),
    model("helmet-detection-inference-big-model"),
    model("helmet-detection-inference-little-model"),
  ]) {
    await stack.cluster.create(object);
  }
});

after(async () => {
  await stack.stop();
});

const FL_PODS = "federatedlearningjob.sedna.io/name=surface-defect-detection";

test("FederatedLearningJob fixture: aggregation pod and Service, one training pod per worker, status Running", async () => {
  await stack.cluster.create(fixture("federatedlearningjob_v1alpha1.yaml"));
  await waitFor("3 running workers", () => livePods(FL_PODS), (pods) => pods.length === 3 && pods.every((p) => p.status?.phase === "Running"), { describe: describePods });
  const pods = await livePods(FL_PODS);
  assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), ["cloud", "edge1", "edge2"]);
  for (const pod of pods) {
    const owner = pod.metadata.ownerReferences[0];
    assert.equal(owner.kind, "FederatedLearningJob");
    assert.equal(owner.controller, true);
  }
  const service = (await waitForObject(stack.cluster, SERVICE, "default", "surface-defect-detection-aggregation")) as Obj;
  assert.equal(service.spec.ports[0].port, 7363);
  const job = (await waitForObject(stack.cluster, FL, "default", "surface-defect-detection", (j) => (j as Obj).status?.phase === "Running")) as Obj;
  assert.equal(job.status.active, 3);
  assert.equal(job.status.observedGeneration, job.metadata.generation);
});

test("a gracefully deleted training pod is replaced exactly once, across a Worker and relay restart before it is gone", async () => {
  const [victim] = await livePods(`${FL_PODS},federatedlearningjob.sedna.io/worker-type=train`);
  assert.ok(victim);
  const slot = victim.metadata.labels["edgeloop.dev/worker"];
  // Graceful: UPDATE with deletionTimestamp first; the kubelet removes it 1 s later.
  await stack.cluster.delete(POD, "default", victim.metadata.name, { gracePeriodSeconds: 1 });
  await waitFor("a replacement", () => livePods(`edgeloop.dev/worker=${slot},${FL_PODS}`), (pods) => pods.length === 1, { describe: describePods });
  await stack.worker.restart();
  await stack.restartRelay();
  await waitForGone(stack.cluster, POD, "default", victim.metadata.name);
  await relayIdle(stack.relay);
  const replacements = await livePods(`edgeloop.dev/worker=${slot},${FL_PODS}`);
  assert.equal(replacements.length, 1, "one pod for the slot: the DELETE after the restarts did not heal again (the ledger kept the claim)");
  assert.notEqual(replacements[0]?.metadata.name, victim.metadata.name);
  assert.equal((await events("surface-defect-detection", "Recreated")).length, 1);
});

test("a training pod deleted while the relay is down is Recreated once after the restart: the job's status remembers it", async () => {
  await relayIdle(stack.relay);
  const [victim] = await livePods(`${FL_PODS},federatedlearningjob.sedna.io/worker-type=train`);
  assert.ok(victim);
  const slot = victim.metadata.labels["edgeloop.dev/worker"];
  const job = (await stack.cluster.find(FL, "default", "surface-defect-detection")) as Obj;
  assert.ok((job.status.workerPods as Obj[]).some((e) => e.slot === slot && e.pod === victim.metadata.name), "the status records the slot's pod");
  await stack.relay.stop();
  // Gone at once, while nothing watches: the restarted relay's first list simply lacks it.
  await stack.cluster.delete(POD, "default", victim.metadata.name, { gracePeriodSeconds: 0 });
  await waitForGone(stack.cluster, POD, "default", victim.metadata.name);
  await stack.restartRelay();
  await waitFor("a replacement", () => livePods(`edgeloop.dev/worker=${slot},${FL_PODS}`), (pods) => pods.length === 1, { describe: describePods });
  await relayIdle(stack.relay);
  const replacements = await livePods(`edgeloop.dev/worker=${slot},${FL_PODS}`);
  assert.equal(replacements.length, 1, "one replacement for the slot");
  assert.notEqual(replacements[0]?.metadata.name, victim.metadata.name);
  const recreated = (await events("surface-defect-detection", "Recreated")).filter((e) => String(e.message).includes(`pod ${String(victim.metadata.name)} is gone`));
  assert.equal(recreated.length, 1, "the Event says Recreated, naming the pod it replaces");
  assert.match(String(recreated[0]?.message), new RegExp(`worker ${String(slot)} as pod ${String(replacements[0]?.metadata.name)}`));
  await waitFor("3 running workers again", () => livePods(FL_PODS), (pods) => pods.length === 3 && pods.every((p) => p.status?.phase === "Running"), { describe: describePods });
});

test("a spec update replaces the pods of the old spec; status-only and metadata-only updates roll nothing", async () => {
  const before = (await livePods(FL_PODS)).map((p) => p.metadata.name).sort();
  await stack.cluster.patch(FL, "default", "surface-defect-detection", { metadata: { labels: { team: "vision" } } }, "merge");
  await relayIdle(stack.relay);
  assert.deepEqual((await livePods(FL_PODS)).map((p) => p.metadata.name).sort(), before, "a label change rolls nothing");

  const job = (await stack.cluster.get(FL, "default", "surface-defect-detection")) as Obj;
  const workers = structuredClone(job.spec.trainingWorkers);
  workers[0].template.spec.containers[0].env = [...(workers[0].template.spec.containers[0].env ?? []), { name: "epochs", value: "2" }];
  const updated = (await stack.cluster.patch(FL, "default", "surface-defect-detection", { spec: { trainingWorkers: workers } }, "merge")) as Obj;
  const rolled = await waitFor(
    "new pods of the new spec",
    () => livePods(FL_PODS),
    (pods) => pods.length === 3 && new Set(pods.map((p) => p.metadata.labels["edgeloop.dev/spec-hash"])).size === 1 && pods.every((p) => !before.includes(p.metadata.name)),
    { describe: describePods },
  );
  assert.ok(rolled[0]?.spec.containers[0].env !== undefined);
  await waitForObject(stack.cluster, FL, "default", "surface-defect-detection", (j) => (j as Obj).status?.observedGeneration === updated.metadata.generation);
});

test("foreground deletion of the job leaves nothing behind, and the name is usable again at once", { timeout: 120_000 }, async () => {
  await stack.cluster.delete(FL, "default", "surface-defect-detection", { propagationPolicy: "Foreground" });
  // The owner goes once its pods are gone: after their 30 s termination grace, as on a real cluster.
  await waitForGone(stack.cluster, FL, "default", "surface-defect-detection", 60_000);
  assert.equal((await stack.cluster.list(POD, { namespace: "default", labelSelector: FL_PODS })).items.length, 0);
  assert.equal(await stack.cluster.find(SERVICE, "default", "surface-defect-detection-aggregation"), undefined);
  await stack.cluster.create(fixture("federatedlearningjob_v1alpha1.yaml"));
  await waitFor("3 workers of the new job", () => livePods(FL_PODS), (pods) => pods.length === 3, { describe: describePods });
  await stack.cluster.delete(FL, "default", "surface-defect-detection");
  // Background: the job goes at once; the garbage collector then deletes (terminates) every pod.
  await waitForGone(stack.cluster, FL, "default", "surface-defect-detection");
  await waitFor("background cascade", () => livePods(FL_PODS), (pods) => pods.length === 0, { describe: describePods });
  await relayIdle(stack.relay);
  assert.equal((await livePods(FL_PODS)).length, 0, "nothing healed while the parent is gone");
});

test("workers that finish make the job Succeeded; a worker that fails for good makes it Failed; neither is healed", async () => {
  await stack.cluster.create(flJob("fl-ok", { "sim.edgeloop.dev/run-seconds": "1" }, "Never"));
  await stack.cluster.create(flJob("fl-bad", { "sim.edgeloop.dev/run-seconds": "1", "sim.edgeloop.dev/exit-code": "2" }, "Never"));
  // The counts follow the pods after the phase is final (the aggregation pod may finish last).
  const ok = (await waitForObject(stack.cluster, FL, "default", "fl-ok", (j) => (j as Obj).status?.phase === "Succeeded" && (j as Obj).status?.succeeded === 3, 20_000)) as Obj;
  assert.ok(ok.status.completionTime);
  assert.equal(ok.status.active, 0);
  const bad = (await waitForObject(stack.cluster, FL, "default", "fl-bad", (j) => (j as Obj).status?.phase === "Failed" && (j as Obj).status?.failed === 3, 20_000)) as Obj;
  assert.ok(bad.status.conditions.some((c: Obj) => c.type === "Failed" && c.status === "True"));
  assert.equal(bad.status.active, 0, "every pod failed: none is active");
  assert.ok((await events("fl-bad", "WorkerFailed")).every((e) => e.type === "Warning"));
  // A completed worker's pod is not rebuilt when it is deleted.
  const [done] = (await stack.cluster.list(POD, { namespace: "default", labelSelector: "federatedlearningjob.sedna.io/name=fl-ok" })).items;
  assert.ok(done);
  await stack.cluster.delete(POD, "default", done.metadata.name ?? "", { gracePeriodSeconds: 0 });
  await relayIdle(stack.relay);
  assert.equal((await stack.cluster.list(POD, { namespace: "default", labelSelector: "federatedlearningjob.sedna.io/name=fl-ok" })).items.length, 2);
});

test("a worker pinned to a node that does not exist keeps the job Pending, and the condition says which", async () => {
  const job = flJob("fl-pinned") as Obj;
  job.spec.trainingWorkers[1].template.spec.nodeName = "edge9";
  await stack.cluster.create(job as KubeObject);
  const selector = "federatedlearningjob.sedna.io/name=fl-pinned";
  await waitFor("2 running workers and one pending", () => livePods(selector), (pods) => pods.length === 3 && pods.filter((p) => p.status?.phase === "Running").length === 2, { describe: describePods });
  await relayIdle(stack.relay);
  const seen = (await stack.cluster.get(FL, "default", "fl-pinned")) as Obj;
  assert.equal(seen.status.phase, "Pending");
  const training = (seen.status.conditions as Obj[]).find((c) => c.type === "Training");
  assert.equal(training?.status, "False");
  assert.match(String(training?.message), /^waiting for train-1 \(pod fl-pinned-train-[0-9a-z]{5} Pending on node edge9\)$/);
  assert.equal(seen.status.active, 3);
  await stack.cluster.delete(FL, "default", "fl-pinned");
  await waitForGone(stack.cluster, FL, "default", "fl-pinned");
});

test("70-character names: the children's names are DNS labels, the workers reach the Services by their actual names", { timeout: 120_000 }, async () => {
  const long = `${"long-federated-learning-job-name-".repeat(3)}x`.slice(0, 70);
  await stack.cluster.create(flJob(long));
  const job = (await waitForObject(stack.cluster, FL, "default", long, (j) => (j as Obj).status?.phase === "Running", 30_000)) as Obj;
  const pods = await livePods(`federatedlearningjob.sedna.io/uid=${String(job.metadata.uid)}`);
  assert.equal(pods.length, 3);
  const [service] = (await stack.cluster.list(SERVICE, { namespace: "default", labelSelector: `federatedlearningjob.sedna.io/uid=${String(job.metadata.uid)}` })).items as Obj[];
  assert.ok(service);
  assert.match(service.metadata.name, /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
  for (const pod of pods) {
    assert.ok(pod.metadata.name.length <= 63, pod.metadata.name);
    assert.ok(Object.values(pod.metadata.labels as Record<string, string>).every((v) => v.length <= 63));
    const env = Object.fromEntries((pod.spec.containers[0].env as Obj[]).map((e) => [e.name, e.value]));
    if (pod.metadata.labels["federatedlearningjob.sedna.io/worker-type"] === "train") assert.equal(env["AGG_IP"], `${String(service.metadata.name)}.default`);
  }

  const ji = structuredClone(fixture("jointinferenceservice_v1alpha1.yaml")) as Obj;
  const jiName = `${"long-joint-inference-service-name-".repeat(3)}y`.slice(0, 70);
  ji.metadata.name = jiName;
  const created = (await stack.cluster.create(ji as KubeObject)) as Obj;
  const uid = `jointinferenceservice.sedna.io/uid=${String(created.metadata.uid)}`;
  await waitForObject(stack.cluster, JI, "default", jiName, (j) => (j as Obj).status?.active === 2, 30_000);
  const deployments = (await stack.cluster.list(DEPLOYMENT, { namespace: "default", labelSelector: uid })).items as Obj[];
  const [cloudService] = (await stack.cluster.list(SERVICE, { namespace: "default", labelSelector: uid })).items as Obj[];
  assert.equal(deployments.length, 2);
  assert.ok(cloudService);
  assert.ok([...deployments, cloudService].every((o) => o.metadata.name.length <= 63));
  const edge = deployments.find((d) => d.metadata.labels["jointinferenceservice.sedna.io/worker-type"] === "edge");
  const edgeEnv = Object.fromEntries((edge?.spec.template.spec.containers[0].env as Obj[]).map((e) => [e.name, e.value]));
  assert.equal(edgeEnv["BIG_MODEL_IP"], `${String(cloudService.metadata.name)}.default`);
  await stack.cluster.delete(FL, "default", long);
  await stack.cluster.delete(JI, "default", jiName);
  await waitForGone(stack.cluster, FL, "default", long);
  await waitForGone(stack.cluster, JI, "default", jiName);
});

const JI_NAME = "helmet-detection-inference-example";

test("JointInferenceService fixture: cloud and edge Deployments and the cloud Service; Deployment and Service healed once each", async () => {
  await stack.cluster.create(fixture("jointinferenceservice_v1alpha1.yaml"));
  const cloud = `${JI_NAME}-deployment-cloud`;
  await waitForObject(stack.cluster, DEPLOYMENT, "default", cloud);
  await waitForObject(stack.cluster, DEPLOYMENT, "default", `${JI_NAME}-deployment-edge`);
  const service = (await waitForObject(stack.cluster, SERVICE, "default", `${JI_NAME}-cloud`)) as Obj;
  assert.equal(service.spec.ports[0].port, 5000);
  const healthy = (await waitForObject(stack.cluster, JI, "default", JI_NAME, (j) => (j as Obj).status?.active === 2)) as Obj;
  // The True condition is the state `kubectl get ji` prints; no other condition contradicts it.
  await waitForObject(stack.cluster, JI, "default", JI_NAME, (j) => ((j as Obj).status?.conditions ?? []).some((c: Obj) => c.type === "Running" && c.status === "True"));
  const conditions = ((await stack.cluster.get(JI, "default", JI_NAME)) as Obj).status.conditions as Obj[];
  assert.deepEqual(conditions.filter((c) => c.status === "True").map((c) => c.type), ["Running"], JSON.stringify(healthy.status));
  assert.ok(conditions.every((c) => !/waiting/.test(String(c.message))), JSON.stringify(conditions));

  const old = await stack.cluster.get(DEPLOYMENT, "default", cloud);
  await stack.cluster.delete(DEPLOYMENT, "default", cloud);
  await waitForObject(stack.cluster, DEPLOYMENT, "default", cloud, (d) => d.metadata.uid !== old.metadata.uid);
  const oldService = await stack.cluster.get(SERVICE, "default", `${JI_NAME}-cloud`);
  await stack.cluster.delete(SERVICE, "default", `${JI_NAME}-cloud`);
  await waitForObject(stack.cluster, SERVICE, "default", `${JI_NAME}-cloud`, (s) => s.metadata.uid !== oldService.metadata.uid);
  await relayIdle(stack.relay);
  assert.equal((await events(JI_NAME, "Recreated")).length, 2);
});

test("deleting the JointInferenceService takes its Deployments, pods and Service", async () => {
  await stack.cluster.delete(JI, "default", JI_NAME);
  await waitForGone(stack.cluster, DEPLOYMENT, "default", `${JI_NAME}-deployment-cloud`);
  await waitForGone(stack.cluster, DEPLOYMENT, "default", `${JI_NAME}-deployment-edge`);
  await waitForGone(stack.cluster, SERVICE, "default", `${JI_NAME}-cloud`);
  await stack.cluster.create(fixture("jointinferenceservice_v1alpha1.yaml"));
  await waitForObject(stack.cluster, DEPLOYMENT, "default", `${JI_NAME}-deployment-cloud`);
});

test("a JointInferenceService spec update updates its edge Deployment in place, and the Deployment controller rolls its pods", { timeout: 120_000 }, async () => {
  const edgeName = `${JI_NAME}-deployment-edge`;
  await waitForObject(stack.cluster, JI, "default", JI_NAME, (j) => (j as Obj).status?.active === 2, 30_000);
  const edge = (await stack.cluster.get(DEPLOYMENT, "default", edgeName)) as Obj;
  const cloud = (await stack.cluster.get(DEPLOYMENT, "default", `${JI_NAME}-deployment-cloud`)) as Obj;
  const ji = (await stack.cluster.get(JI, "default", JI_NAME)) as Obj;
  const containers = structuredClone(ji.spec.edgeWorker.template.spec.containers) as Obj[];
  containers[0] = { ...containers[0], env: [...(containers[0]?.env ?? []), { name: "threshold_box_update", value: "0.6" }] };
  await stack.cluster.patch(JI, "default", JI_NAME, { spec: { edgeWorker: { template: { spec: { containers } } } } }, "merge");
  const updated = (await waitForObject(stack.cluster, DEPLOYMENT, "default", edgeName, (d) => (d as Obj).spec.template.spec.containers[0].env.some((e: Obj) => e.name === "threshold_box_update"), 30_000)) as Obj;
  assert.equal(updated.metadata.uid, edge.metadata.uid, "updated in place, not recreated");
  assert.notEqual(updated.metadata.labels["edgeloop.dev/spec-hash"], edge.metadata.labels["edgeloop.dev/spec-hash"]);
  // The Deployment controller (the sim's, or kube-controller-manager's) rolls the edge pods to the new template.
  await waitFor(
    "the edge pods of the new template",
    () => livePods(`jointinferenceservice.sedna.io/name=${JI_NAME},jointinferenceservice.sedna.io/worker-type=edge`),
    (pods) => pods.length === 1 && pods.every((p) => p.status?.phase === "Running" && p.spec.containers[0].env.some((e: Obj) => e.name === "threshold_box_update")),
    { timeoutMs: 60_000, describe: describePods },
  );
  await relayIdle(stack.relay);
  const untouched = (await stack.cluster.get(DEPLOYMENT, "default", `${JI_NAME}-deployment-cloud`)) as Obj;
  assert.equal(untouched.metadata.generation, cloud.metadata.generation, "the cloud worker's spec did not change: its Deployment is not written");
  assert.equal((await events(JI_NAME, "Updated")).filter((e) => String(e.message).includes(edgeName)).length, 1);
});

test("foreground deletion of the JointInferenceService: its Deployments, their pods and its Service go first, then the service", { timeout: 120_000 }, async () => {
  const uid = ((await stack.cluster.get(JI, "default", JI_NAME)) as Obj).metadata.uid as string;
  const owned = `jointinferenceservice.sedna.io/uid=${uid}`;
  assert.equal((await stack.cluster.list(DEPLOYMENT, { namespace: "default", labelSelector: owned })).items.length, 2);
  await stack.cluster.delete(JI, "default", JI_NAME, { propagationPolicy: "Foreground" });
  await waitForGone(stack.cluster, JI, "default", JI_NAME, 60_000);
  // The owner is gone only once its blocking dependents are: nothing of it is left.
  assert.deepEqual((await stack.cluster.list(DEPLOYMENT, { namespace: "default", labelSelector: owned })).items.map((d) => d.metadata.name), []);
  assert.deepEqual((await stack.cluster.list(SERVICE, { namespace: "default", labelSelector: owned })).items.map((s) => s.metadata.name), []);
  await waitFor("the Deployments' pods to go", () => livePods(owned), (pods) => pods.length === 0, { timeoutMs: 30_000, describe: describePods });
  await relayIdle(stack.relay);
  assert.equal(await stack.cluster.find(DEPLOYMENT, "default", `${JI_NAME}-deployment-cloud`), undefined, "nothing healed while the parent is gone");
});
