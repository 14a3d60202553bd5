/**
 * The gang scheduler (functions/controllers/gang) on the local stack: a sim of 1,000 nodes,
 * the Worker in workerd, a relay process. Side by side on the same sim:
 *
 * 1. **Gang scheduler**: 10,000 pending pods in 1,250 groups of 8 (`schedulerName:
 *    fluxnetes`). Seven pods of every group are created first: the groups are
 *    provisional and nothing can be bound; once `GET /v1/gangs` shows them all, the 8th
 *    pod of every group is created, as fast as the sim takes creates, and the time runs
 *    from the first of those creates until every pod has a node. Checked: no pod was
 *    bound before its group was complete, every group has all its pods bound, no node is
 *    over its allocatable. Also counted: the events batches the Worker served from the
 *    first create until the relay was idle again (the last binds' Events applied).
 * 2. **The sim's default scheduler**, the baseline: the same 10,000 pods without
 *    `schedulerName` or group labels, created while the scheduler is paused (as with
 *    kube-scheduler down), timed from its resume until every pod has a node. The first
 *    scenario's pods are deleted first, so both start from the same empty nodes; the gang
 *    scheduler keeps running (it watches every pod), as it would in a cluster.
 * 3. **The cost of one pass** as the queue grows, 100 to 10,000 pending groups of 8 on
 *    1,000 nodes: measured in process, in Node 24 over `node:sqlite`, not in workerd
 *    (see `./gang-pass.ts`).
 *
 * Pods ask for 100m cpu and 64Mi, so each 8-cpu node has room for 80 of them (10 each
 * on average). The creates are made in process (the sim runs in this process), at most
 * {@link CONCURRENCY} at once. EDGELOOP_BENCH_GANG_PODS, _NODES and _PASS_GROUPS make a
 * smaller run (e.g. 800 pods on 100 nodes, passes of 100,1000 groups);
 * EDGELOOP_BENCH_LOG_LEVEL=debug makes the relay log every batch it delivers (events,
 * actions, Worker and apply ms); EDGELOOP_BENCH_PROFILE=DIR writes the CPU profile of this
 * process (the sim) while the gang scheduler places the pods, beside the relay's (util.ts).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { waitFor } from "../../cli/wait.ts";
import type { GangRow } from "../../functions/controllers/gang/api/schema.ts";
import { gangRows } from "../e2e/readers.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import type { SimCluster } from "../../sim/index.ts";
import { SIM_TOKEN } from "../../sim/kubeconfig.ts";
import { allocatableOf, charge, idleUsage, podRequests, type Usage } from "../../sim/controllers/resources.ts";
import { testStack } from "../e2e/harness.ts";
import { inspectMs, passMs } from "./gang-pass.ts";
import { inPool, metricSum, relayBundle, relayIdle, relayProcess, tenth } from "./util.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const GROUP_SIZE = 8;
const GROUPS = Math.floor(Number(process.env.EDGELOOP_BENCH_GANG_PODS ?? 10_000) / GROUP_SIZE);
const PODS = GROUPS * GROUP_SIZE;
const NODES = Number(process.env.EDGELOOP_BENCH_GANG_NODES ?? 1_000);
const PASS_GROUPS = (process.env.EDGELOOP_BENCH_GANG_PASS_GROUPS ?? "100,1000,2500,5000,10000").split(",").map(Number);
/** Passes timed per queue length (the median is reported). */
const PASS_RUNS = 5;
/** Creates (and deletes) in flight at once. */
const CONCURRENCY = 32;
const GANG_NAMESPACE = "gang";
const PLAIN_NAMESPACE = "plain";
const GROUP_LABEL = "fluxnetes.group-name";
/** How long any wait may take before the bench gives up. */
const WAIT_MS = 600_000;

type Relay = Awaited<ReturnType<typeof relayProcess>>;
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested spec and status

/** What the gang scenario measured. */
interface GangRun {
  readonly seconds: number;
  /** Events batches the relay sent to the Worker from the first create until it was idle again. */
  readonly batches: number;
  /** Their mean time from sending to plan applied, ms. */
  readonly meanBatchMs: number;
  /** Pod and Node watch events the relay received meanwhile, per batch. */
  readonly eventsPerBatch: number;
}

/** The spec every pod of both scenarios shares: small requests, no grace period. */
function podSpec(): Obj {
  return { terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "100m", memory: "64Mi" } } }] };
}

/** Pod `index` of gang group `group`. */
function gangPod(group: number, index: number): KubeObject {
  const labels = { [GROUP_LABEL]: `g${group}`, "fluxnetes.group-size": String(GROUP_SIZE) };
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `g${group}-${index}`, namespace: GANG_NAMESPACE, labels }, spec: { ...podSpec(), schedulerName: "fluxnetes" } } as KubeObject;
}

/** Pod `index` for the default scheduler. */
function plainPod(index: number): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `p${index}`, namespace: PLAIN_NAMESPACE }, spec: podSpec() } as KubeObject;
}

/** Pods of every group with index `from` to `to` (excluded), group after group. */
function gangPods(from: number, to: number): KubeObject[] {
  return Array.from({ length: GROUPS }, (_, group) => Array.from({ length: to - from }, (_, i) => gangPod(group, from + i))).flat();
}

/** The pods placed in a namespace as a watch sees them, and those bound before their group was complete. */
interface BindWatch {
  /** How many pods of the namespace have a node. */
  bound(): number;
  /** Pods bound while their group had fewer than {@link GROUP_SIZE} pods. */
  readonly early: string[];
  stop(): void;
}

/** Watches the pods of `namespace`: counts the bound ones, and notes those bound before their whole group existed. */
function watchBinds(cluster: SimCluster, namespace: string): BindWatch {
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

/** Creates a namespace. */
async function createNamespace(cluster: SimCluster, name: string): Promise<void> {
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } } as KubeObject);
}

/** The gang queue's rows (`GET /v1/gangs`, through the relay's API port). */
function simGangRows(stack: Stack, namespace?: string): Promise<GangRow[]> {
  // The sim authenticates the token of its own kubeconfig (ADR 0010: the API reviews its callers).
  return gangRows(stack, SIM_TOKEN, namespace);
}

/** Whether the gang queue holds every group of the gang namespace as provisional, each one pod short. */
async function allProvisional(stack: Stack): Promise<boolean> {
  const rows = await simGangRows(stack, GANG_NAMESPACE);
  return rows.filter((row) => row.state === "provisional" && row.present === GROUP_SIZE - 1).length === GROUPS;
}

/** The gang controller's events batches, their total time (s) and the Pod and Node watch events, from the relay's metrics. */
function relayCounts(text: string): { batches: number; seconds: number; events: number } {
  return {
    batches: metricSum(text, "edgeloop_reconciles_total", { controller: "gang" }),
    seconds: metricSum(text, "edgeloop_reconcile_duration_seconds_sum", { controller: "gang" }),
    events: metricSum(text, "edgeloop_watch_events_total", { kind: "Pod" }) + metricSum(text, "edgeloop_watch_events_total", { kind: "Node" }),
  };
}

/** Throws unless every group of the gang namespace has all its pods, every one bound. */
async function checkGroups(cluster: SimCluster): Promise<void> {
  const groups = new Map<string, { pods: number; bound: number }>();
  for (const pod of (await cluster.list(POD, { namespace: GANG_NAMESPACE })).items as Obj[]) {
    const group = String(pod.metadata.labels?.[GROUP_LABEL]);
    const counts = groups.get(group) ?? { pods: 0, bound: 0 };
    groups.set(group, { pods: counts.pods + 1, bound: counts.bound + (pod.spec?.nodeName ? 1 : 0) });
  }
  const partial = [...groups].filter(([, counts]) => counts.pods !== GROUP_SIZE || counts.bound !== GROUP_SIZE);
  if (groups.size !== GROUPS || partial.length > 0) {
    throw new Error(`${groups.size} groups of ${GROUPS} found; not all bound: ${partial.slice(0, 10).map(([group, c]) => `${group} ${c.bound}/${c.pods}`).join(", ")}`);
  }
}

/** Throws if any node holds more pods, cpu or memory than it has allocatable. */
async function checkCapacity(cluster: SimCluster): Promise<void> {
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
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
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

/** Scenario 1: the gang scheduler places {@link PODS} pods whose groups all complete at once. */
async function gangScenario(stack: Stack, relay: Relay, progress: (message: string) => void): Promise<GangRun> {
  const cluster = stack.sim.cluster;
  await createNamespace(cluster, GANG_NAMESPACE);
  const watch = watchBinds(cluster, GANG_NAMESPACE);
  try {
    progress(`creating ${GROUP_SIZE - 1} of the ${GROUP_SIZE} pods of ${GROUPS} groups (${GROUPS * (GROUP_SIZE - 1)} pods)`);
    await inPool(gangPods(0, GROUP_SIZE - 1), CONCURRENCY, (pod) => cluster.create(pod));
    progress("waiting until GET /v1/gangs shows every group provisional");
    await waitFor("every group provisional in the gang queue", () => allProvisional(stack), (ok) => ok, { timeoutMs: WAIT_MS, intervalMs: 1_000 });
    await relayIdle(relay.metrics, WAIT_MS);
    if (watch.bound() > 0) throw new Error(`${watch.bound()} pods were bound before their group was complete`);
    const before = relayCounts(await relay.metrics());
    progress(`creating the last pod of every group; timing until all ${PODS} pods are bound`);
    const started = performance.now();
    await profiled("gang-sim", async () => {
      await inPool(gangPods(GROUP_SIZE - 1, GROUP_SIZE), CONCURRENCY, (pod) => cluster.create(pod));
      progress(`${GROUPS} creates took ${Math.round(performance.now() - started)} ms`);
      await waitFor(`all ${PODS} gang pods bound`, () => watch.bound(), (count) => count >= PODS, { timeoutMs: WAIT_MS, intervalMs: 20 });
    });
    const seconds = (performance.now() - started) / 1000;
    // The last binds' Events, and the kubelet's status changes, are still being delivered.
    await relayIdle(relay.metrics, WAIT_MS);
    progress(`every pod bound after ${tenth(seconds)} s; the relay idle ${tenth((performance.now() - started) / 1000 - seconds)} s later`);
    const after = relayCounts(await relay.metrics());
    if (watch.early.length > 0) throw new Error(`pods bound before their group was complete: ${watch.early.slice(0, 10).join(", ")}`);
    await checkGroups(cluster);
    await checkCapacity(cluster);
    const batches = after.batches - before.batches;
    return { seconds, batches, meanBatchMs: (1000 * (after.seconds - before.seconds)) / Math.max(1, batches), eventsPerBatch: (after.events - before.events) / Math.max(1, batches) };
  } finally {
    watch.stop();
  }
}

/** Deletes the gang scenario's pods, then waits until no pod is bound anywhere, the gang queue is empty and the relay idle. */
async function emptyNodes(stack: Stack, relay: Relay): Promise<void> {
  const cluster = stack.sim.cluster;
  const pods = (await cluster.list(POD, { namespace: GANG_NAMESPACE })).items;
  await inPool(pods, CONCURRENCY, (pod) => cluster.delete(POD, GANG_NAMESPACE, pod.metadata.name ?? "", { gracePeriodSeconds: 0 }));
  await waitFor("no pod bound on any node", async () => !((await cluster.list(POD)).items as Obj[]).some((pod) => pod.spec?.nodeName), (ok) => ok, { timeoutMs: WAIT_MS, intervalMs: 250 });
  await waitFor("an empty gang queue", async () => (await simGangRows(stack)).length, (count) => count === 0, { timeoutMs: WAIT_MS, intervalMs: 1_000 });
  await relayIdle(relay.metrics, WAIT_MS);
}

/** Scenario 2: the sim's default scheduler places {@link PODS} pods created while it was paused; the seconds it took. */
async function defaultScenario(stack: Stack, relay: Relay, progress: (message: string) => void): Promise<number> {
  const cluster = stack.sim.cluster;
  await createNamespace(cluster, PLAIN_NAMESPACE);
  const watch = watchBinds(cluster, PLAIN_NAMESPACE);
  stack.sim.pauseScheduler();
  try {
    progress(`creating ${PODS} pods for the default scheduler, paused`);
    await inPool(Array.from({ length: PODS }, (_, i) => plainPod(i)), CONCURRENCY, (pod) => cluster.create(pod));
    await relayIdle(relay.metrics, WAIT_MS);
    if (watch.bound() > 0) throw new Error(`the paused default scheduler bound ${watch.bound()} pods`);
    progress(`resuming the default scheduler; timing until all ${PODS} pods are bound`);
    const started = performance.now();
    stack.sim.resumeScheduler();
    await waitFor(`all ${PODS} pods bound by the default scheduler`, () => watch.bound(), (count) => count >= PODS, { timeoutMs: WAIT_MS, intervalMs: 20 });
    const seconds = (performance.now() - started) / 1000;
    await checkCapacity(cluster);
    return seconds;
  } finally {
    stack.sim.resumeScheduler();
    watch.stop();
  }
}

/** Scenarios 1 and 2 on one stack; reports their figures. */
async function onStack(report: Parameters<Benchmark["run"]>[0], progress: (message: string) => void): Promise<void> {
  progress(`starting the stack: a sim of ${NODES} nodes, the Worker, a relay process`);
  const stack = await testStack({ nodes: NODES, extraControllerDirs: [] });
  let relay: Relay | undefined;
  try {
    await waitFor(`${NODES} nodes`, async () => (await stack.sim.cluster.list(NODE)).items.length, (count) => count >= NODES, { timeoutMs: WAIT_MS, intervalMs: 100 });
    await stack.relay.stop();
    relay = await relayProcess(stack, await relayBundle());
    await relayIdle(relay.metrics, WAIT_MS);

    const gang = await gangScenario(stack, relay, progress);
    progress(`${gang.batches} events batches, ${tenth(gang.eventsPerBatch)} Pod/Node watch events and ${Math.round(gang.meanBatchMs)} ms (Worker + apply) per batch on average`);
    const gangRate = PODS / gang.seconds;
    report({ metric: "pods_per_second", value: Math.round(gangRate), unit: "1/s", target: ">= 1000" });
    report({ metric: "seconds_to_place_all", value: tenth(gang.seconds), unit: "s" });
    report({ metric: "worker_requests", value: gang.batches, unit: "batches" });

    progress("deleting the gang pods: both scenarios start from empty nodes");
    await emptyNodes(stack, relay);
    const seconds = await defaultScenario(stack, relay, progress);
    const defaultRate = PODS / seconds;
    report({ metric: "default_scheduler_pods_per_second", value: Math.round(defaultRate), unit: "1/s" });
    report({ metric: "ratio_to_default_scheduler", value: Math.round((gangRate / defaultRate) * 100) / 100, unit: "x", target: ">= 1" });
  } finally {
    relay?.child.kill("SIGTERM");
    await stack.stop();
  }
}

const bench: Benchmark = {
  name: "gang",
  async run(report, progress) {
    await onStack(report, progress);
    for (const groups of PASS_GROUPS) {
      progress(`one pass with ${groups} pending groups of ${GROUP_SIZE} on 1000 nodes, in process (median of ${PASS_RUNS})`);
      report({ metric: `pass_ms_${groups}_groups`, value: tenth(passMs(groups, PASS_RUNS)), unit: "ms", series: "pass_ms", x: groups, xUnit: "pending groups" });
      progress(`GET /v1/gangs with ${groups} pending groups: the object's read from the last pass's rows, and from none (a pass, as after a restart)`);
      const inspect = inspectMs(groups, PASS_RUNS);
      report({ metric: `inspect_ms_${groups}_groups`, value: tenth(inspect.kept), unit: "ms", series: "inspect_ms", x: groups, xUnit: "pending groups" });
      report({ metric: `inspect_first_ms_${groups}_groups`, value: tenth(inspect.first), unit: "ms", series: "inspect_first_ms", x: groups, xUnit: "pending groups" });
      report({ metric: `inspect_fresh_ms_${groups}_groups`, value: tenth(inspect.fresh), unit: "ms", series: "inspect_fresh_ms", x: groups, xUnit: "pending groups" });
    }
  },
};
export default bench;
