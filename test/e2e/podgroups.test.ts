/**
 * Groups declared by PodGroup objects, end to end on the sim or a real control plane
 * (e2eStack; on a real one with KEP-4671's API on, as `cluster/` starts it), with real
 * kubectl and upstream's examples (test/fixtures/scheduler-plugins and
 * test/fixtures/workload-api, SOURCES.md there): scheduler-plugins' PodGroup (its CRD
 * installed from the gang family's schema) holds a Deployment's pods until `minMember` are
 * there, then they bind as one group and the PodGroup's status is written back as its
 * controller writes it; its README's ReplicaSet demo binds as one group; the native
 * Workload/PodGroup example binds its four pods at once (kube-scheduler, which serves the
 * same API on a real control plane, leaves `fluxnetes` pods alone) and gets its
 * `PodGroupScheduled` condition. Every wait is a condition with a deadline.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { waitFor } from "../../cli/wait.ts";
import type { GangRow } from "../../functions/controllers/gang/api/schema.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "../sim/kubectl.ts";
import { describePods, waitForObject } from "../support/cluster-waits.ts";
import { createNamespaces, e2eStack, type E2EStack } from "./harness.ts";
import { gangRows, readerToken } from "./readers.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

const COSCHEDULING = join(import.meta.dirname, "../fixtures/scheduler-plugins");
const WORKLOAD_API = join(import.meta.dirname, "../fixtures/workload-api");
const POD = { apiVersion: "v1", kind: "Pod" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const SP_POD_GROUP = { apiVersion: "scheduling.x-k8s.io/v1alpha1", kind: "PodGroup" };
const NATIVE_POD_GROUP = { apiVersion: "scheduling.k8s.io/v1alpha2", kind: "PodGroup" };
/** The component the relay records its Events as. */
const RELAY_COMPONENT = "edgeloop-relay";
const skip = KUBECTL_SKIP;
/** A pass is well under a second here; the PodGroup statuses take a round trip or two through the watch. */
const WAIT_MS = 30_000;

let stack: E2EStack;
let kubectl: Kubectl;
/** A token that may list pods everywhere: what `GET /v1/gangs` asks of a caller. */
let reader: string;

before(async () => {
  if (skip) return;
  // Three nodes of 8 cpu: the README demo's six pods of 3 cpu fit two to a node.
  stack = await e2eStack({ nodes: ["node-1", "node-2", "node-3"] });
  kubectl = kubectlFor(stack.kubeconfigPath);
  await createNamespaces(stack, ["coscheduling", "coscheduling-demo", "workload-api"]);
  reader = await readerToken(stack, "podgroups-reader");
});

after(async () => {
  if (skip) return;
  await stack.stop();
});

/** The pods of `namespace`, not being deleted. */
async function pods(namespace: string): Promise<Obj[]> {
  return ((await stack.cluster.list(POD, { namespace })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

/** Waits until `count` pods of `namespace` are bound; answers them. */
async function bound(namespace: string, count: number): Promise<Obj[]> {
  return waitFor(`${count} pods of ${namespace} bound (those bound)`, async () => (await pods(namespace)).filter((p) => p.spec.nodeName), (list) => list.length === count, { timeoutMs: WAIT_MS, describe: describePods });
}

/** The Scheduled Events of `namespace`. */
async function scheduled(namespace: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace })).items as Obj[]).filter((e) => e.reason === "Scheduled");
}

/**
 * Asserts the `count` pods of `namespace` were bound by the relay as group `key`, at least
 * `min` of them at once (a group starts with the pods present once it has its size; a pod
 * that arrives later joins it, as coscheduling lets pods beyond minMember through).
 */
async function boundAsOneGroup(namespace: string, key: string, count: number, min = count): Promise<void> {
  const events = await waitFor(`the Scheduled Events of ${namespace}`, () => scheduled(namespace), (list) => list.length >= count, { timeoutMs: WAIT_MS });
  const sizes: number[] = [];
  for (const event of events) {
    assert.equal(event.reportingComponent, RELAY_COMPONENT, "recorded by the relay, not by kube-scheduler");
    const match = new RegExp(`\\(gang ${key}, (\\d+) pods\\)$`).exec(event.message);
    assert.ok(match, `bound as group ${key}: ${event.message}`);
    sizes.push(Number(match[1]));
  }
  assert.ok(Math.max(...sizes) >= min, `at least ${min} bound at once (${sizes.join(", ")})`);
  if (min === count) assert.deepEqual(sizes, Array(count).fill(count), "all at once");
}

/** The gang queue's rows for `namespace`, through the relay's API. */
function gangs(namespace: string): Promise<GangRow[]> {
  return gangRows(stack, reader, namespace);
}

test("scheduler-plugins' install example: the Deployment's 2 pods wait for minMember 3, bind together once scaled to 3; the PodGroup's status is written back", { skip }, async () => {
  assert.match(await kubectl(["apply", "-n", "coscheduling", "-f", join(COSCHEDULING, "podgroup.yaml")]), /podgroup\.scheduling\.x-k8s\.io\/pg1 created/);
  assert.match(await kubectl(["apply", "-n", "coscheduling", "-f", join(COSCHEDULING, "deploy.yaml")]), /deployment\.apps\/pause created/);
  const waiting = await waitFor("the group of 2 waiting for 3", () => gangs("coscheduling"), (rows) => rows.some((r) => r.group === "pg1" && r.state === "provisional" && r.present === 2 && r.size === 3), { timeoutMs: WAIT_MS });
  assert.match(waiting.find((r) => r.group === "pg1")?.waitingFor ?? "", /^1 more of 3 pods/);
  await waitForObject(stack.cluster, SP_POD_GROUP, "coscheduling", "pg1", (pg: Obj) => pg.status?.phase === "Pending", WAIT_MS);
  assert.deepEqual((await pods("coscheduling")).filter((p) => p.spec.nodeName), [], "none bound while the group is short");
  await kubectl(["scale", "-n", "coscheduling", "deploy", "pause", "--replicas=3"]);
  await bound("coscheduling", 3);
  await boundAsOneGroup("coscheduling", "coscheduling/pg1", 3);
  const running = (await waitForObject(stack.cluster, SP_POD_GROUP, "coscheduling", "pg1", (pg: Obj) => pg.status?.phase === "Running" && pg.status?.running === 3, WAIT_MS)) as Obj;
  assert.match(running.status.occupiedBy, /^coscheduling\/pause-/, "occupiedBy: the first pod's owner, the ReplicaSet");
  assert.match(await kubectl(["get", "podgroups.scheduling.x-k8s.io", "-n", "coscheduling", "pg1"]), /pg1\s+Running\s+3\s+3/, "the CRD's printer columns");
  const rows = await gangs("coscheduling");
  assert.deepEqual(rows.map((r) => [r.group, r.state, r.size]), [["pg1", "running", 3]]);
});

test("scheduler-plugins' README demo: a ReplicaSet of 6 labelled for PodGroup nginx (minMember 3): at least 3 bind at once, all 6 as that group", { skip }, async () => {
  await kubectl(["apply", "-n", "coscheduling-demo", "-f", join(COSCHEDULING, "nginx-replicaset.yaml")]);
  await bound("coscheduling-demo", 6);
  // minMember is 3: the group starts once 3 of the ReplicaSet's pods exist, with those present; the rest join it.
  await boundAsOneGroup("coscheduling-demo", "coscheduling-demo/nginx", 6, 3);
  await waitForObject(stack.cluster, SP_POD_GROUP, "coscheduling-demo", "nginx", (pg: Obj) => pg.status?.phase === "Running" && pg.status?.running === 6, WAIT_MS);
});

test("KEP-4671's Workload/PodGroup example: worker-0 waits for the gang's minCount 4; with three more pods naming the PodGroup all four bind at once; PodGroupScheduled True", { skip }, async () => {
  const file = join(WORKLOAD_API, "training.yaml");
  const applied = await kubectl(["apply", "-n", "workload-api", "-f", file]);
  assert.match(applied, /workload\.scheduling\.k8s\.io\/training-policy created/);
  assert.match(applied, /podgroup\.scheduling\.k8s\.io\/training-worker-0 created/);
  assert.match(applied, /pod\/worker-0 created/);
  await waitFor("worker-0 waiting for 3 more", () => gangs("workload-api"), (rows) => rows.some((r) => r.group === "training-worker-0" && r.state === "provisional" && r.size === 4), { timeoutMs: WAIT_MS });
  const worker = parseAllDocuments(readFileSync(file, "utf8")).map((doc) => doc.toJS() as Obj).find((o) => o.kind === "Pod");
  assert.ok(worker);
  for (const name of ["worker-1", "worker-2", "worker-3"]) await stack.cluster.create({ ...worker, metadata: { ...worker.metadata, name, namespace: "workload-api" } } as KubeObject);
  const placed = await bound("workload-api", 4);
  assert.deepEqual(placed.map((p) => p.spec.schedulingGroup?.podGroupName), Array(4).fill("training-worker-0"));
  await boundAsOneGroup("workload-api", "workload-api/training-worker-0", 4);
  const group = (await waitForObject(stack.cluster, NATIVE_POD_GROUP, "workload-api", "training-worker-0", (pg: Obj) => pg.status?.conditions?.some((c: Obj) => c.type === "PodGroupScheduled" && c.status === "True") === true, WAIT_MS)) as Obj;
  const condition = group.status.conditions.find((c: Obj) => c.type === "PodGroupScheduled");
  assert.equal(condition.reason, "Scheduled");
  assert.equal(condition.observedGeneration, group.metadata.generation);
  assert.deepEqual((await gangs("workload-api")).map((r) => [r.group, r.state, r.size]), [["training-worker-0", "running", 4]]);
});
