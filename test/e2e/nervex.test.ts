/**
 * NerveX end to end, on the sim or a real control plane (e2eStack), with real kubectl and
 * the upstream manifests unchanged: the coordinator and its Service, the replicas API
 * called over plain HTTP exactly as DI-engine's coordinator calls it (no Content-Type,
 * `{}` bodies, retries on a dropped connection), the GPU split, a failed learner replaced,
 * cleanup per cleanPodPolicy, a deleted coordinator recreated once, and the webhooks (on a
 * real control plane, its audit log shows the API server called both).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { waitFor } from "../../cli/wait.ts";
import { waitForGone, waitForObject } from "../support/cluster-waits.ts";
import { call, coordinatorEnv, type ClientReply, type CoordinatorEnv } from "../support/di-engine-client.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "../sim/kubectl.ts";
import { createNamespaces, e2eStack, type E2EStack } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

// The upstream manifests, byte-identical (their sources: functions/controllers/nervex/fixtures/SOURCES.md).
const FIXTURES = join(import.meta.dirname, "../../functions/controllers/nervex/fixtures");
const POD = { apiVersion: "v1", kind: "Pod" };
const SERVICE = { apiVersion: "v1", kind: "Service" };
const NODE = { apiVersion: "v1", kind: "Node" };
const JOB = { apiVersion: "nervex.sensetime.com/v1alpha1", kind: "NerveXJob" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const skip = KUBECTL_SKIP;

let stack: E2EStack;
let kubectl: Kubectl;
let dir: string;

before(async () => {
  if (skip) return;
  stack = await e2eStack({ nodes: ["node-1", "node-2", "node-3"] });
  dir = mkdtempSync(join(tmpdir(), "nervex-e2e-"));
  kubectl = kubectlFor(stack.kubeconfigPath);
  await createNamespaces(stack, ["mock", "full", "nervex-system", "ends"]);
});

after(async () => {
  if (skip) return;
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
});

function fixture(file: string): Obj {
  const [document] = parseAllDocuments(readFileSync(join(FIXTURES, file), "utf8"));
  return document?.toJS() as Obj;
}

async function livePods(namespace: string, selector: string): Promise<Obj[]> {
  return ((await stack.cluster.list(POD, { namespace, labelSelector: selector })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

async function events(namespace: string, name: string, reason: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace })).items as Obj[]).filter((e) => e.involvedObject?.name === name && e.reason === reason);
}

/** The coordinator of `job` once Running, and what DI-engine reads from its environment. */
async function runningCoordinator(namespace: string, job: string): Promise<{ pod: Obj; env: CoordinatorEnv }> {
  const pod = (await waitForObject(stack.cluster, POD, namespace, `${job}-coordinator`, (p) => (p as Obj).status?.phase === "Running")) as Obj;
  return { pod, env: coordinatorEnv(pod) };
}

/** The pod name of a replica URL `<name>.<namespace>:<port>`. */
const podOf = (url: string): string => url.split(".")[0] ?? "";

function assertOk(reply: ClientReply, what: string): Obj {
  assert.equal(reply.status, 200, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body.success, true, what);
  assert.equal(reply.body.code, 0, what);
  return reply.body.data as Obj;
}

test("the upstream NerveXJob manifests apply unchanged: coordinator pod and headless Service, env, phase Running", { skip }, async () => {
  assert.match(await kubectl(["apply", "-n", "mock", "-f", join(FIXTURES, "nervex-mock-nervexjob.yaml")]), /nervexjob.nervex.sensetime.com\/nervexjob-example created/);
  assert.match(await kubectl(["apply", "-n", "full", "-f", join(FIXTURES, "nervex_v1alpha1_nervexjob.yaml")]), /created/);
  const { pod, env } = await runningCoordinator("mock", "nervexjob-example");
  assert.equal(env.KUBERNETES_POD_NAMESPACE, "mock");
  assert.equal(env.KUBERNETES_POD_NAME, "nervexjob-example-coordinator");
  assert.equal(`http://${env.KUBERNETES_SERVER_URL}`, stack.apiUrl, "the coordinator is told where the replicas API is, host:port");
  const container = (pod.spec.containers as Obj[]).find((c) => c.name === "nervex-container") as Obj;
  const vars = Object.fromEntries((container.env as Obj[]).map((e) => [e.name, e.value]));
  assert.equal(vars.COORDINATOR_PORT, "22273");
  assert.equal(vars.KUBERNETES_COORDINATOR_URL, "nervexjob-example-coordinator.mock:22273");
  assert.deepEqual(container.ports, [{ name: "nervex-port", containerPort: 22273, protocol: "TCP" }]);
  assert.equal(pod.metadata.labels["replica-type"], "coordinator");
  assert.equal(pod.metadata.labels["nervexjob-name"], "nervexjob-example");
  assert.equal(pod.metadata.ownerReferences[0].kind, "NerveXJob");
  const service = (await waitForObject(stack.cluster, SERVICE, "mock", "nervexjob-example-coordinator")) as Obj;
  assert.equal(service.spec.clusterIP, "None");
  assert.equal(service.spec.ports[0].port, 22273);
  await waitForObject(stack.cluster, JOB, "mock", "nervexjob-example", (j) => (j as Obj).status?.phase === "Running");
  const table = await kubectl(["get", "nvxjob", "-n", "mock"]);
  assert.match(table, /^NAME\s+PHASE\s+AGE$/m, "the printer columns");
  assert.match(table, /^nervexjob-example\s+Running\s+\S+$/m);

  // The full example: volumes and the coordinator's own env kept.
  const full = (await runningCoordinator("full", "nervexjob-example")).pod;
  // A real API server's ServiceAccount admission adds the projected token volume (kube-api-access-*); the template's are kept.
  const volumes = (full.spec.volumes as Obj[]).map((v) => v.name as string).filter((name) => !name.startsWith("kube-api-access-"));
  assert.deepEqual(volumes.sort(), ["cache-volume", "data-dir"]);
  const fullVars = ((full.spec.containers as Obj[])[0]?.env as Obj[]).map((e) => e.name);
  for (const name of ["LC_ALL", "COORDINATOR_PORT", "KUBERNETES_POD_NAMESPACE", "KUBERNETES_POD_NAME", "KUBERNETES_SERVER_URL", "KUBERNETES_COORDINATOR_URL"]) assert.ok(fullVars.includes(name), name);
});

test("replicas over plain HTTP as DI-engine calls them: POST, GET, a retried POST created once, DELETE, failed learner replaced", { skip }, async () => {
  const { env } = await runningCoordinator("mock", "nervexjob-example");
  const server = env.KUBERNETES_SERVER_URL;
  const coordinator = env.KUBERNETES_POD_NAME;
  const namespace = env.KUBERNETES_POD_NAMESPACE;
  const JOB_PODS = "nervexjob-name=nervexjob-example";

  const created = assertOk(await call(server, "POST", "/v1alpha1/replicas", { namespace, coordinator, collectors: { replicas: 2, cpus: "100m", memory: "64Mi" }, learners: { replicas: 1, cpus: "100m" } }), "POST");
  assert.equal(created.collectors.length, 2);
  assert.equal(created.learners.length, 1);
  for (const url of [...created.collectors, ...created.learners] as string[]) {
    // The mock templates name their nervex-port 80: the template's port wins over the default.
    assert.match(url, /^nervexjob-example-(collector|learner)-[a-z0-9]{5}\.mock:80$/);
    const pod = (await stack.cluster.get(POD, "mock", podOf(url))) as Obj;
    assert.equal(pod.metadata.ownerReferences[0].name, "nervexjob-example");
    assert.equal(pod.spec.containers[0].resources.requests.cpu, "100m");
    await stack.cluster.get(SERVICE, "mock", podOf(url));
  }

  const listed = assertOk(await call(server, "GET", `/v1alpha1/replicas?namespace=${namespace}&coordinator=${coordinator}`), "GET by coordinator");
  assert.deepEqual([...listed.collectors].sort(), [...created.collectors].sort());
  assert.deepEqual(listed.learners, created.learners);
  const one = await call(server, "GET", `/v1alpha1/replicas?namespace=${namespace}&name=${podOf(created.collectors[0] as string)}`);
  assert.equal(one.status, 200, "a replica by name (upstream answered no data)");
  assert.ok(JSON.stringify(one.body.data).includes(podOf(created.collectors[0] as string)));
  const inNamespace = assertOk(await call(server, "GET", `/v1alpha1/replicas?namespace=${namespace}`), "GET a namespace's sets");
  assert.ok(Array.isArray(inNamespace) && inNamespace.some((set: Obj) => set.coordinator === coordinator));
  // Naming no namespace is refused, not answered with every NerveX pod of the cluster (issue 28, finding 3).
  const unscoped = await call(server, "GET", "/v1alpha1/replicas");
  assert.equal(unscoped.status, 400);
  assert.match(String(unscoped.body.message), /^namespace: required/);

  // The connection drops after the request was sent; the client sends it again.
  const body = { namespace, coordinator, collectors: { replicas: 2 } };
  const retried = await call(server, "POST", "/v1alpha1/replicas", body, { dropFirst: true });
  assert.equal(retried.attempts, 2);
  const again = assertOk(retried, "retried POST");
  assert.equal(again.collectors.length, 2);
  await waitFor("4 collectors (those)", async () => (await livePods("mock", `${JOB_PODS},replica-type=collector`)).map((p) => p.metadata.name), (collectors) => collectors.length >= 4);
  assert.equal((await livePods("mock", `${JOB_PODS},replica-type=collector`)).length, 4, "2 + 2: the retry created nothing");

  const removed = assertOk(await call(server, "DELETE", "/v1alpha1/replicas", { namespace, coordinator, collectors: { replicas: 1 } }), "DELETE");
  assert.equal(removed.collectors.length, 1);
  await waitForGone(stack.cluster, POD, "mock", podOf(removed.collectors[0] as string));
  await waitForGone(stack.cluster, SERVICE, "mock", podOf(removed.collectors[0] as string));

  const learner = podOf(created.learners[0] as string);
  const replaced = assertOk(await call(server, "POST", "/v1alpha1/replicas/failed", { namespace, coordinator, learners: [learner] }), "POST failed");
  assert.equal(replaced.learners.length, 1);
  const successor = podOf(replaced.learners[0] as string);
  assert.notEqual(successor, learner);
  await waitForGone(stack.cluster, POD, "mock", learner);
  const fresh = (await stack.cluster.get(POD, "mock", successor)) as Obj;
  assert.equal(fresh.metadata.labels["replica-type"], "learner");
  assert.equal(fresh.spec.containers[0].resources.requests.cpu, "100m", "the same spec under a new name");

  // Another job's coordinator (same namespace) cannot touch this job's pods.
  const other = fixture("nervex-mock-nervexjob.yaml");
  other.metadata = { name: "other", namespace: "mock" };
  await kubectl(["apply", "-f", "-"], JSON.stringify(other));
  const foreign = await runningCoordinator("mock", "other");
  const victim = (await livePods("mock", `${JOB_PODS},replica-type=collector`))[0]?.metadata.name as string;
  const refused = await call(server, "POST", "/v1alpha1/replicas/failed", { namespace: "mock", coordinator: foreign.env.KUBERNETES_POD_NAME, collectors: [victim] });
  assert.equal(refused.status, 404);
  assert.equal(refused.body.success, false);
  assert.ok(await stack.cluster.find(POD, "mock", victim), "the pod is untouched");
  const unknown = await call(server, "GET", "/v1alpha1/replicas?namespace=mock&coordinator=nobody-coordinator");
  assert.equal(unknown.status, 404);
  const bad = await call(server, "POST", "/v1alpha1/replicas", { namespace, coordinator, collectors: { replicas: "many" } });
  assert.equal(bad.status, 400);
  assert.match(String(bad.body.message), /collectors\.replicas/);
  const put = await call(server, "PUT", "/v1alpha1/replicas", {});
  assert.equal(put.status, 501);
  // The plain port serves the APIs and /healthz, never admission (that stays on the TLS front).
  assert.equal((await call(server, "POST", "/admission/nervexjob-validate", {})).status, 404);
  assert.equal((await call(server, "GET", "/healthz")).status, 200);
});

test("GPU learners: without an AggregatorConfig only they fail; with it, 10 GPUs on 8-GPU nodes are an aggregator and two ddp-learners", { skip }, async () => {
  const { env } = await runningCoordinator("mock", "nervexjob-example");
  const server = env.KUBERNETES_SERVER_URL;
  const base = { namespace: env.KUBERNETES_POD_NAMESPACE, coordinator: env.KUBERNETES_POD_NAME };
  for (const [node, gpus] of [["node-1", "8"], ["node-2", "8"], ["node-3", "0"]] as const) {
    await kubectl(["patch", "node", node, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { capacity: { "nvidia.com/gpu": gpus }, allocatable: { "nvidia.com/gpu": gpus } } })]);
  }
  await waitFor("the GPUs in the relay's cache (nodes with 8 GPUs)", async () => ((await stack.cluster.list(NODE)).items as Obj[]).filter((n) => n.status?.allocatable?.["nvidia.com/gpu"] === "8").length, (nodes) => nodes === 2);

  const missing = await call(server, "POST", "/v1alpha1/replicas", { ...base, learners: { replicas: 1, gpus: 2 } });
  assert.equal(missing.status, 404, JSON.stringify(missing.body));
  assert.match(String(missing.body.message), /nervex-system\/aggregator-config/);
  assertOk(await call(server, "POST", "/v1alpha1/replicas", { ...base, collectors: { replicas: 1 } }), "a POST without GPUs needs no AggregatorConfig");

  await kubectl(["apply", "-f", join(FIXTURES, "nervex-mock-agconfig.yaml")]);
  const reply = await waitFor("a GPU learner POST to succeed (its reply)", () => call(server, "POST", "/v1alpha1/replicas", { ...base, learners: { replicas: 1, gpus: 10 } }), (answer) => answer.status === 200);
  const data = reply.body.data as Obj;
  assert.equal(data.learners.length, 1);
  const aggregator = podOf(data.learners[0] as string);
  assert.match(data.learners[0] as string, new RegExp(`^${aggregator}\\.mock:80$`), "the learner URL is the aggregator's (the AggregatorConfig's nervex-port)");
  const agg = (await stack.cluster.get(POD, "mock", aggregator)) as Obj;
  assert.equal(agg.metadata.labels["replica-type"], "aggregator");
  const ddp = (await livePods("mock", "replica-type=ddp-learner")) as Obj[];
  const gpus = ddp.map((p) => Number(p.spec.containers[0].resources.limits["nvidia.com/gpu"])).sort((a, b) => b - a);
  assert.deepEqual(gpus, [8, 2]);
  for (const pod of ddp) {
    const vars = Object.fromEntries((pod.spec.containers[0].env as Obj[]).map((e) => [e.name, e.value]));
    assert.equal(vars.WORLD_SIZE, "10");
    assert.equal(vars.MASTER_PORT, "10314");
    assert.ok(vars.MASTER_ADDR);
  }
  const byAggregator = assertOk(await call(server, "GET", `/v1alpha1/replicas?namespace=mock&aggregator=${aggregator}`), "GET by aggregator");
  assert.equal(byAggregator.learners.length, 10, "one URL per GPU port of the ddp-learners");
});

/** A job whose coordinator finishes by itself after `seconds` (the sim's run-seconds annotation). */
function finishingJob(name: string, policy: string, seconds: number): Obj {
  const job = fixture("nervex-mock-nervexjob.yaml");
  job.metadata = { name, namespace: "ends" };
  job.spec.cleanPodPolicy = policy;
  job.spec.coordinator.template.metadata = { annotations: { "sim.edgeloop.dev/run-seconds": String(seconds) } };
  return job;
}

test("on completion the job's Services go, and its pods per cleanPodPolicy: ALL, Running (the coordinator stays), None", { skip }, async () => {
  const policies = { ALL: "ends-all", Running: "ends-running", None: "ends-none" } as const;
  for (const [policy, name] of Object.entries(policies)) await kubectl(["apply", "-f", "-"], JSON.stringify(finishingJob(name, policy, 8)));
  for (const name of Object.values(policies)) {
    const { env } = await runningCoordinator("ends", name);
    assertOk(await call(env.KUBERNETES_SERVER_URL, "POST", "/v1alpha1/replicas", { namespace: "ends", coordinator: env.KUBERNETES_POD_NAME, collectors: { replicas: 1 } }), `${name} collector`);
  }
  for (const name of Object.values(policies)) await waitForObject(stack.cluster, JOB, "ends", name, (j) => (j as Obj).status?.phase === "Succeeded", 30_000);
  const remaining = async (name: string): Promise<string[]> => (await livePods("ends", `nervexjob-name=${name}`)).map((p) => p.metadata.labels["replica-type"] as string).sort();
  const services = async (): Promise<string[]> => ((await stack.cluster.list(SERVICE, { namespace: "ends" })).items as Obj[]).map((s) => s.metadata.name as string);
  await waitFor("cleanup (pods and Services left)", async () => ({ all: await remaining(policies.ALL), running: await remaining(policies.Running), services: await services() }), (left) => left.all.length === 0 && left.running.length === 1 && left.services.length === 0);
  assert.deepEqual(await remaining(policies.ALL), []);
  assert.deepEqual(await remaining(policies.Running), ["coordinator"], "the finished coordinator stays for its logs");
  assert.deepEqual(await remaining(policies.None), ["collector", "coordinator"]);
  assert.deepEqual(await services(), [], "every job's Services are removed");
  const job = (await stack.cluster.get(JOB, "ends", policies.Running)) as Obj;
  assert.equal(job.status.replicaStatus.Coordinator.succeeded, 1);
  assert.equal((job.status.conditions as Obj[]).filter((c) => c.type === "Succeeded").length, 1);
  assert.ok((await events("ends", policies.ALL, "SuccessfulDelete")).length >= 2);
  assert.equal((await events("ends", policies.Running, "NerveXJobSucceeded")).length, 1);
});

test("a deleted coordinator of a running job is recreated, once", { skip }, async () => {
  const { pod } = await runningCoordinator("mock", "nervexjob-example");
  await kubectl(["delete", "pod", "-n", "mock", pod.metadata.name, "--wait=false"]);
  const successor = (await waitForObject(stack.cluster, POD, "mock", "nervexjob-example-coordinator", (p) => p.metadata.uid !== pod.metadata.uid && !(p as Obj).metadata.deletionTimestamp, 20_000)) as Obj;
  assert.notEqual(successor.metadata.uid, pod.metadata.uid);
  await waitFor("the Recreated Event (those recorded)", () => events("mock", "nervexjob-example", "Recreated"), (recorded) => recorded.length >= 1);
  await runningCoordinator("mock", "nervexjob-example");
  assert.equal((await events("mock", "nervexjob-example", "Recreated")).length, 1);
  assert.equal((await livePods("mock", "nervexjob-name=nervexjob-example,replica-type=coordinator")).length, 1);
});

test("the webhooks: cleanPodPolicy defaults to Running; kubectl apply of another value prints the refusal", { skip }, async () => {
  const job = fixture("nervex-mock-nervexjob.yaml");
  job.metadata = { name: "defaulted", namespace: "ends" };
  delete job.spec.cleanPodPolicy;
  await kubectl(["apply", "-f", "-"], JSON.stringify(job));
  assert.equal(((await stack.cluster.get(JOB, "ends", "defaulted")) as Obj).spec.cleanPodPolicy, "Running");
  job.metadata = { name: "refused", namespace: "ends" };
  job.spec.cleanPodPolicy = "Sometimes";
  await assert.rejects(kubectl(["apply", "-f", "-"], JSON.stringify(job)), (error: Error) => {
    assert.match(error.message, /admission webhook "nervexjob-validate\.edgeloop\.dev" denied the request: spec\.cleanPodPolicy: Unsupported value: "Sometimes": supported values: "ALL", "None", "Running"/);
    return true;
  });
  assert.equal(await stack.cluster.find(JOB, "ends", "refused"), undefined, "nothing stored");
  const defaulted = fixture("nervex-mock-nervexjob.yaml");
  defaulted.metadata = { name: "defaulted", namespace: "ends" };
  defaulted.spec.cleanPodPolicy = "Never";
  await assert.rejects(kubectl(["apply", "-f", "-"], JSON.stringify(defaulted)), /"Never"/, "UPDATE is validated too");
  if (stack.controlPlane) {
    // The real API server called both: its audit log records the mutating webhook's patch, and the validating webhook's denial as its response.
    const auditLogPath = stack.controlPlane.auditLogPath;
    const creates = await waitFor("both creates in the audit log (the names found)", () => auditedCreates(auditLogPath, "ends", ["defaulted", "refused"]), (found) => found.size === 2, { describe: (found) => [...found.keys()].join(", ") });
    const mutations = (event: AuditEvent): unknown[] => Object.entries(event.annotations ?? {}).filter(([key]) => key.startsWith("mutation.webhook.admission.k8s.io/")).map(([, value]) => JSON.parse(value) as unknown);
    assert.deepEqual(mutations(creates.get("defaulted") ?? {}), [{ configuration: "edgeloop-mutating", webhook: "nervexjob-defaults.edgeloop.dev", mutated: true }]);
    const refused = creates.get("refused")?.responseStatus;
    assert.equal(refused?.code, 400);
    assert.match(refused?.message ?? "", /^admission webhook "nervexjob-validate\.edgeloop\.dev" denied the request: /);
  }
});

/** One record of the API server's audit log (the fields read here). */
interface AuditEvent {
  readonly verb?: string;
  readonly objectRef?: { readonly resource?: string; readonly namespace?: string; readonly name?: string };
  readonly responseStatus?: { readonly code?: number; readonly message?: string };
  readonly annotations?: Record<string, string>;
}

/** The audit log's create of each NerveXJob of `names` in `namespace`, by name. */
function auditedCreates(auditLogPath: string, namespace: string, names: readonly string[]): Map<string, AuditEvent> {
  const found = new Map<string, AuditEvent>();
  // Whole lines only: the last one may be still being written.
  for (const line of readFileSync(auditLogPath, "utf8").split("\n").slice(0, -1)) {
    if (!line.includes('"nervexjobs"')) continue;
    const event = JSON.parse(line) as AuditEvent;
    const ref = event.objectRef;
    if (event.verb === "create" && ref?.resource === "nervexjobs" && ref.namespace === namespace && names.includes(ref.name ?? "")) found.set(ref.name ?? "", event);
  }
  return found;
}
