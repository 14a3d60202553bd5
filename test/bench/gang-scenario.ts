/**
 * The gang scheduler's placement scenario, shared by the gang bench (`./gang.bench.ts`)
 * and the link bench (`./wan.bench.ts`): {@link GROUP_SIZE}-pod groups
 * (`schedulerName: fluxnetes`) whose pods but the last are created first, so that every
 * group waits provisional; then the last pod of every group, timed until every pod has a
 * node. Checked: no pod bound before its group was complete, every group whole and bound,
 * no node over its allocatable (the checks also serve the real control plane's gang
 * bench, `./cluster/gang.ts`).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { waitFor } from "../../cli/wait.ts";
import type { GangRow } from "../../functions/controllers/gang/api/schema.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import type { Cluster } from "../../sim/contract.ts";
import type { SimCluster } from "../../sim/index.ts";
import { SIM_TOKEN } from "../../sim/kubeconfig.ts";
import { allocatableOf, charge, idleUsage, podRequests, type Usage } from "../../sim/controllers/resources.ts";
import { gangRows } from "../e2e/readers.ts";
import { inPool, metricSum, relayIdle, tenth, type relayProcess } from "./util.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
/** Pods per group. */
export const GROUP_SIZE = 8;
/** Creates (and deletes) in flight at once. */
export const CONCURRENCY = 32;
const GROUP_LABEL = "fluxnetes.group-name";

/** How long any wait may take before the bench gives up. */
const WAIT_MS = 600_000;

export type Relay = Awaited<ReturnType<typeof relayProcess>>;
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested spec and status

/** What the gang scenario measured. */
export interface GangRun {
  readonly seconds: number;
  /** Events batches the relay sent to the Worker from the first create until it was idle again. */
  readonly batches: number;
  /** Their mean time from sending to plan applied, ms. */
  readonly meanBatchMs: number;
  /** Pod and Node watch events the relay received meanwhile, per batch. */
  readonly eventsPerBatch: number;
}

/** The spec every pod of both scenarios shares: small requests, no grace period. */
export function podSpec(): Obj {
  return { terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "100m", memory: "64Mi" } } }] };
}

/** Pod `index` of gang group `group`. */
function gangPod(namespace: string, group: number, index: number): KubeObject {
  const labels = { [GROUP_LABEL]: `g${group}`, "fluxnetes.group-size": String(GROUP_SIZE) };
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `g${group}-${index}`, namespace, labels }, spec: { ...podSpec(), schedulerName: "fluxnetes" } } as KubeObject;
}

/** Pods of every one of `groups` groups with index `from` to `to` (excluded), group after group. */
function gangPods(namespace: string, groups: number, from: number, to: number): KubeObject[] {
  return Array.from({ length: groups }, (_, group) => Array.from({ length: to - from }, (_, i) => gangPod(namespace, group, from + i))).flat();
}

/** The pods placed in a namespace as a watch sees them, and those bound before their group was complete. */
export interface BindWatch {
  /** How many pods of the namespace have a node. */
  bound(): number;
  /** Pods bound while their group had fewer than {@link GROUP_SIZE} pods. */
  readonly early: string[];
  stop(): void;
}

/** Watches the pods of `namespace`: counts the bound ones, and notes those bound before their whole group existed. */
export function watchBinds(cluster: Pick<Cluster, "watch">, namespace: string): BindWatch {
  const members = new Map<string, number>();
  const bound = new Set<string>();
  const early: string[] = [];
  const stop = cluster.watch(POD, (event) => {
    const pod = event.object as Obj;
    if (pod.metadata.namespace !== namespace || event.type === "DELETED") return;
    const group: string | undefined = pod.metadata.labels?.[GROUP_LABEL];
    if (event.type === "ADDED" && group !== undefined) members.set(group, (members.get(group) ?? 0) + 1);
    if (!pod.spec?.nodeName || bound.has(pod.metadata.name)) return;
    bound.add(pod.metadata.name);
    if (group !== undefined && (members.get(group) ?? 0) < GROUP_SIZE) early.push(pod.metadata.name);
  });
  return { bound: () => bound.size, early, stop };
}

/** Creates a namespace, unless it exists. */
export async function createNamespace(cluster: SimCluster, name: string): Promise<void> {
  if ((await cluster.list({ apiVersion: "v1", kind: "Namespace" })).items.some((ns) => ns.metadata.name === name)) return;
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } } as KubeObject);
}

/** The gang queue's rows (`GET /v1/gangs`, through the relay's API port). */
function simGangRows(stack: Stack, namespace?: string): Promise<GangRow[]> {
  // The sim authenticates the token of its own kubeconfig (ADR 0010: the API reviews its callers).
  return gangRows(stack, SIM_TOKEN, namespace);
}

/** Whether the gang queue holds every one of `groups` groups of `namespace` as provisional, each one pod short. */
async function allProvisional(stack: Stack, namespace: string, groups: number): Promise<boolean> {
  const rows = await simGangRows(stack, namespace);
  return rows.filter((row) => row.state === "provisional" && row.present === GROUP_SIZE - 1).length === groups;
}

/** The gang controller's events batches, their total time (s) and the Pod and Node watch events, from the relay's metrics. */
function relayCounts(text: string): { batches: number; seconds: number; events: number } {
  return {
    batches: metricSum(text, "edgeloop_reconciles_total", { controller: "gang" }),
    seconds: metricSum(text, "edgeloop_reconcile_duration_seconds_sum", { controller: "gang" }),
    events: metricSum(text, "edgeloop_watch_events_total", { kind: "Pod" }) + metricSum(text, "edgeloop_watch_events_total", { kind: "Node" }),
  };
}

/** Throws unless each of the `expected` groups of `namespace` has all its pods, every one bound. */
export async function checkGroups(cluster: Pick<Cluster, "list">, namespace: string, expected: number): Promise<void> {
  const groups = new Map<string, { pods: number; bound: number }>();
  for (const pod of (await cluster.list(POD, { namespace })).items as Obj[]) {
    const group = String(pod.metadata.labels?.[GROUP_LABEL]);
    const counts = groups.get(group) ?? { pods: 0, bound: 0 };
    groups.set(group, { pods: counts.pods + 1, bound: counts.bound + (pod.spec?.nodeName ? 1 : 0) });
  }
  const partial = [...groups].filter(([, counts]) => counts.pods !== GROUP_SIZE || counts.bound !== GROUP_SIZE);
  if (groups.size !== expected || partial.length > 0) {
    throw new Error(`${groups.size} groups of ${expected} found; not all bound: ${partial.slice(0, 10).map(([group, c]) => `${group} ${c.bound}/${c.pods}`).join(", ")}`);
  }
}

/** Throws if any node holds more pods, cpu or memory than it has allocatable. */
export async function checkCapacity(cluster: Pick<Cluster, "list">): Promise<void> {
  const usage = new Map<string, Usage>();
  for (const pod of (await cluster.list(POD)).items as Obj[]) {
    const node: string | undefined = pod.spec?.nodeName;
    if (node === undefined || ["Succeeded", "Failed"].includes(pod.status?.phase)) continue;
    const used = usage.get(node) ?? idleUsage();
    charge(used, podRequests(pod as KubeObject), 1);
    usage.set(node, used);
  }
  const over: string[] = [];
  for (const node of (await cluster.list(NODE)).items) {
    const used = usage.get(node.metadata.name ?? "");
    if (used === undefined) continue;
    const allocatable = allocatableOf(node);
    if (used.pods > (allocatable.get("pods") ?? 0)) over.push(`${node.metadata.name ?? ""}: ${used.pods} pods`);
    for (const [resource, amount] of used.requested) if (amount > (allocatable.get(resource) ?? 0)) over.push(`${node.metadata.name ?? ""}: ${resource} ${amount}`);
  }
  if (over.length > 0) throw new Error(`nodes over their allocatable: ${over.slice(0, 10).join(", ")}`);
}

/** Runs `work`; with EDGELOOP_BENCH_PROFILE=DIR, writes this process's CPU profile meanwhile to DIR/`name`.cpuprofile. */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.EDGELOOP_BENCH_PROFILE;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/** The gang scheduler places `groups` groups of {@link GROUP_SIZE} pods in `namespace`, all completing at once. */
export async function gangScenario(stack: Stack, relay: Relay, progress: (message: string) => void, namespace: string, groups: number): Promise<GangRun> {
  const cluster = stack.sim.cluster;
  const pods = groups * GROUP_SIZE;
  await createNamespace(cluster, namespace);
  const watch = watchBinds(cluster, namespace);
  try {
    progress(`creating ${GROUP_SIZE - 1} of the ${GROUP_SIZE} pods of ${groups} groups (${groups * (GROUP_SIZE - 1)} pods)`);
    await inPool(gangPods(namespace, groups, 0, GROUP_SIZE - 1), CONCURRENCY, (pod) => cluster.create(pod));
    progress("waiting until GET /v1/gangs shows every group provisional");
    await waitFor("every group provisional in the gang queue", () => allProvisional(stack, namespace, groups), (ok) => ok, { timeoutMs: WAIT_MS, intervalMs: 1_000 });
    await relayIdle(relay.metrics, WAIT_MS);
    if (watch.bound() > 0) throw new Error(`${watch.bound()} pods were bound before their group was complete`);
    const before = relayCounts(await relay.metrics());
    progress(`creating the last pod of every group; timing until all ${pods} pods are bound`);
    const started = performance.now();
    await profiled("gang-sim", async () => {
      await inPool(gangPods(namespace, groups, GROUP_SIZE - 1, GROUP_SIZE), CONCURRENCY, (pod) => cluster.create(pod));
      progress(`${groups} creates took ${Math.round(performance.now() - started)} ms`);
      await waitFor(`all ${pods} gang pods bound`, () => watch.bound(), (count) => count >= pods, { timeoutMs: WAIT_MS, intervalMs: 20 });
    });
    const seconds = (performance.now() - started) / 1000;
    // The last binds' Events, and the kubelet's status changes, are still being delivered.
    await relayIdle(relay.metrics, WAIT_MS);
    progress(`every pod bound after ${tenth(seconds)} s; the relay idle ${tenth((performance.now() - started) / 1000 - seconds)} s later`);
    const after = relayCounts(await relay.metrics());
    if (watch.early.length > 0) throw new Error(`pods bound before their group was complete: ${watch.early.slice(0, 10).join(", ")}`);
    await checkGroups(cluster, namespace, groups);
    await checkCapacity(cluster);
    const batches = after.batches - before.batches;
    return { seconds, batches, meanBatchMs: (1000 * (after.seconds - before.seconds)) / Math.max(1, batches), eventsPerBatch: (after.events - before.events) / Math.max(1, batches) };
  } finally {
    watch.stop();
  }
}

/** Deletes the gang scenario's pods in `namespace`, then waits until none of them is left, the gang queue is empty and the relay idle. */
export async function emptyNodes(stack: Stack, relay: Relay, namespace: string): Promise<void> {
  const cluster = stack.sim.cluster;
  const pods = (await cluster.list(POD, { namespace })).items;
  await inPool(pods, CONCURRENCY, (pod) => cluster.delete(POD, namespace, pod.metadata.name ?? "", { gracePeriodSeconds: 0 }));
  await waitFor(`no pod left in ${namespace}`, async () => (await cluster.list(POD, { namespace })).items.length, (count) => count === 0, { timeoutMs: WAIT_MS, intervalMs: 250 });
  await waitFor("an empty gang queue", async () => (await simGangRows(stack)).length, (count) => count === 0, { timeoutMs: WAIT_MS, intervalMs: 1_000 });
  await relayIdle(relay.metrics, WAIT_MS);
}

