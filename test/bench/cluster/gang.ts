/**
 * Gang placement on the real control plane: the workload of `../gang.bench.ts` (groups of
 * {@link GROUP_SIZE} pods asking 100m cpu and 64Mi) on {@link NODES} kwok nodes (8 cpu,
 * 110 pods each: one kwok process per node, so a few dozen on a 2-core machine, not the
 * sim's 1,000), placed first by edgeloop's gang scheduler, then by the real kube-scheduler.
 *
 * 1. **Gang scheduler**: 7 pods of every group created (`schedulerName: fluxnetes`); once
 *    `GET /v1/gangs` shows every group provisional, the 8th pod of every group is
 *    created and the time runs from the first of those creates until a watch has seen
 *    every pod with a node. Checked: no pod bound before its group was complete, every
 *    group whole and bound, no node over its allocatable.
 * 2. **kube-scheduler**, the baseline: the gang pods deleted, the same number of pods
 *    without `schedulerName` or group labels created held by a scheduling gate (a real
 *    kube-scheduler cannot be paused as the sim's is; a gated pod is not scheduled), then
 *    every gate removed ({@link CONCURRENCY} patches at once), timed from the first
 *    patch until every pod has a node. kube-scheduler runs as the control plane starts
 *    it (its default client QPS included).
 *
 * EDGELOOP_BENCH_CLUSTER_NODES (default 40) and EDGELOOP_BENCH_CLUSTER_GANG_PODS (2,000)
 * set the size.
 */
import { waitFor } from "../../../cli/wait.ts";
import type { GangRow } from "../../../functions/controllers/gang/api/schema.ts";
import { gangRows } from "../../e2e/readers.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { checkCapacity, checkGroups, GROUP_SIZE, watchBinds } from "../gang-scenario.ts";
import { inPool, metricSum, relayIdle, tenth } from "../util.ts";
import { clusterBench, createNamespace, POD, WAIT_MS, type ClusterBench } from "./stack.ts";
import type { Progress, Report } from "./figures.ts";

export const NODES = Number(process.env.EDGELOOP_BENCH_CLUSTER_NODES ?? 40);
const GROUPS = Math.floor(Number(process.env.EDGELOOP_BENCH_CLUSTER_GANG_PODS ?? 2_000) / GROUP_SIZE);
const PODS = GROUPS * GROUP_SIZE;
const CONCURRENCY = 32;
const GANG_NAMESPACE = "gang";
const PLAIN_NAMESPACE = "plain";
const GROUP_LABEL = "fluxnetes.group-name";
const GATE = "edgeloop.dev/bench-hold";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested spec and status

/** The spec every pod of both scenarios shares (as `../gang.bench.ts`'s). */
function podSpec(): Obj {
  return { terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "100m", memory: "64Mi" } } }] };
}

function gangPod(group: number, index: number): KubeObject {
  const labels = { [GROUP_LABEL]: `g${group}`, "fluxnetes.group-size": String(GROUP_SIZE) };
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `g${group}-${index}`, namespace: GANG_NAMESPACE, labels }, spec: { ...podSpec(), schedulerName: "fluxnetes" } } as KubeObject;
}

/** A pod for kube-scheduler, held by a scheduling gate until {@link defaultScenario} lifts it. */
function gatedPod(index: number): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `p${index}`, namespace: PLAIN_NAMESPACE }, spec: { ...podSpec(), schedulingGates: [{ name: GATE }] } } as KubeObject;
}

function gangPods(from: number, to: number): KubeObject[] {
  return Array.from({ length: GROUPS }, (_, group) => Array.from({ length: to - from }, (_, i) => gangPod(group, from + i))).flat();
}

/** The gang queue's rows (`GET /v1/gangs`), of one namespace or all. */
export function benchGangRows(bench: ClusterBench, namespace?: string): Promise<GangRow[]> {
  return gangRows(bench.stack, bench.readerToken, namespace);
}

/** Scenario 1: the gang scheduler places {@link PODS} pods whose groups all complete at once; the seconds it took. */
async function gangScenario(bench: ClusterBench, progress: Progress): Promise<number> {
  const cluster = bench.cluster;
  await createNamespace(cluster, GANG_NAMESPACE);
  const watch = watchBinds(cluster, GANG_NAMESPACE);
  try {
    progress(`gang: creating ${GROUP_SIZE - 1} of the ${GROUP_SIZE} pods of ${GROUPS} groups`);
    await inPool(gangPods(0, GROUP_SIZE - 1), CONCURRENCY, (pod) => cluster.create(pod));
    await waitFor("every group provisional in the gang queue", async () => (await benchGangRows(bench, GANG_NAMESPACE)).filter((row) => row.state === "provisional" && row.present === GROUP_SIZE - 1).length, (count) => count === GROUPS, { timeoutMs: WAIT_MS, intervalMs: 1_000 });
    await relayIdle(bench.relay.metrics, WAIT_MS);
    if (watch.bound() > 0) throw new Error(`${watch.bound()} pods were bound before their group was complete`);
    const before = metricSum(await bench.relay.metrics(), "edgeloop_reconciles_total", { controller: "gang" });
    progress(`gang: creating the last pod of every group; timing until all ${PODS} pods are bound`);
    const started = performance.now();
    await inPool(gangPods(GROUP_SIZE - 1, GROUP_SIZE), CONCURRENCY, (pod) => cluster.create(pod));
    await waitFor(`all ${PODS} gang pods bound`, () => watch.bound(), (count) => count >= PODS, { timeoutMs: WAIT_MS, intervalMs: 5 });
    const seconds = (performance.now() - started) / 1000;
    await relayIdle(bench.relay.metrics, WAIT_MS);
    const batches = metricSum(await bench.relay.metrics(), "edgeloop_reconciles_total", { controller: "gang" }) - before;
    progress(`gang: every pod bound after ${tenth(seconds)} s, ${batches} events batches`);
    if (watch.early.length > 0) throw new Error(`pods bound before their group was complete: ${watch.early.slice(0, 10).join(", ")}`);
    await checkGroups(cluster, GANG_NAMESPACE, GROUPS);
    await checkCapacity(cluster);
    return seconds;
  } finally {
    watch.stop();
  }
}

/** Deletes the gang pods; waits until no pod is bound anywhere, the gang queue is empty and the relay idle. */
async function emptyNodes(bench: ClusterBench): Promise<void> {
  const cluster = bench.cluster;
  const pods = (await cluster.list(POD, { namespace: GANG_NAMESPACE })).items;
  await inPool(pods, CONCURRENCY, (pod) => cluster.delete(POD, GANG_NAMESPACE, pod.metadata.name ?? "", { gracePeriodSeconds: 0 }));
  await waitFor("no pod bound on any node", async () => !((await cluster.list(POD)).items as Obj[]).some((pod) => pod.spec?.nodeName), (ok) => ok, { timeoutMs: WAIT_MS, intervalMs: 250 });
  await waitFor("an empty gang queue", async () => (await benchGangRows(bench)).length, (count) => count === 0, { timeoutMs: WAIT_MS, intervalMs: 1_000 });
  await relayIdle(bench.relay.metrics, WAIT_MS);
}

/** Scenario 2: kube-scheduler places {@link PODS} pods whose scheduling gates are lifted at once; the seconds it took. */
async function defaultScenario(bench: ClusterBench, progress: Progress): Promise<number> {
  const cluster = bench.cluster;
  await createNamespace(cluster, PLAIN_NAMESPACE);
  const watch = watchBinds(cluster, PLAIN_NAMESPACE);
  try {
    progress(`kube-scheduler: creating ${PODS} pods held by a scheduling gate`);
    const pods = Array.from({ length: PODS }, (_, i) => gatedPod(i));
    await inPool(pods, CONCURRENCY, (pod) => cluster.create(pod));
    await relayIdle(bench.relay.metrics, WAIT_MS);
    if (watch.bound() > 0) throw new Error(`kube-scheduler bound ${watch.bound()} gated pods`);
    progress(`kube-scheduler: lifting every gate; timing until all ${PODS} pods are bound`);
    const started = performance.now();
    await inPool(pods, CONCURRENCY, (pod) => cluster.patch(POD, PLAIN_NAMESPACE, pod.metadata.name ?? "", [{ op: "remove", path: "/spec/schedulingGates" }], "json"));
    progress(`kube-scheduler: ${PODS} gates lifted in ${Math.round(performance.now() - started)} ms`);
    await waitFor(`all ${PODS} pods bound by kube-scheduler`, () => watch.bound(), (count) => count >= PODS, { timeoutMs: WAIT_MS, intervalMs: 5 });
    const seconds = (performance.now() - started) / 1000;
    await checkCapacity(cluster);
    return seconds;
  } finally {
    watch.stop();
  }
}

/** Gang placement vs kube-scheduler on a control plane of {@link NODES} kwok nodes. */
export async function gang(report: Report, progress: Progress, script: string): Promise<void> {
  const bench = await clusterBench(Array.from({ length: NODES }, (_, i) => `sim-node-${i + 1}`), script, progress, { extraControllerDirs: [] });
  try {
    const gangSeconds = await gangScenario(bench, progress);
    const gangRate = PODS / gangSeconds;
    report({ metric: "gang_pods_per_second", value: Math.round(gangRate), unit: "1/s", target: ">= 1000" });
    report({ metric: "gang_seconds_to_place_all", value: tenth(gangSeconds), unit: "s" });
    report({ metric: "gang_pods", value: PODS, unit: "pods" });
    report({ metric: "gang_nodes", value: NODES, unit: "nodes" });
    progress("deleting the gang pods: both scenarios start from empty nodes");
    await emptyNodes(bench);
    const defaultSeconds = await defaultScenario(bench, progress);
    const defaultRate = PODS / defaultSeconds;
    report({ metric: "gang_kube_scheduler_pods_per_second", value: Math.round(defaultRate), unit: "1/s" });
    report({ metric: "gang_ratio_to_kube_scheduler", value: Math.round((gangRate / defaultRate) * 100) / 100, unit: "x", target: ">= 1" });
  } finally {
    await bench.stop();
  }
}
