/**
 * Gang schedulers side by side on the real control plane (issue 25, ADR 0027): the same
 * workloads (`./gang-peers/scenarios.ts`: throughput, and the deadlocks of
 * scheduler-plugins #117, #713/#397 and #930) on the same kwok nodes, placed by
 *
 * - **edgeloop**'s gang scheduler, installed as `npm run test:cluster` installs it (the
 *   relay a process of its own, as on the other cluster figures);
 * - **native**: Kubernetes 1.36's own gang scheduling (KEP-4671: GangScheduling and
 *   GenericWorkload gates, `scheduling.k8s.io/v1alpha2` PodGroup), by the release's
 *   kube-scheduler on the same control plane as edgeloop;
 * - **coscheduling**: kube-scheduler with the Coscheduling plugin of
 *   `sigs.k8s.io/scheduler-plugins` v0.34.7, built from its module and run in place of
 *   kube-scheduler on a control plane of its own with the same nodes (`./gang-peers/coscheduling.ts`).
 *
 * One control plane at a time. Figures are of bench `gang-peers`, each prefixed by its
 * peer (`edgeloop_pods_per_second`, `coscheduling_interleaved_117_completed`, …), then
 * edgeloop's ratio to each peer on pods/s. Half-placed is defined in
 * `./gang-peers/observe.ts`. A peer that cannot be built or started is said so in one line
 * on stderr (the error) and the others are measured.
 *
 * EDGELOOP_BENCH_PEERS_NODES (default 16), EDGELOOP_BENCH_PEERS_PODS (1,024),
 * EDGELOOP_BENCH_PEERS (edgeloop,native,coscheduling) and EDGELOOP_BENCH_PEERS_SCENARIOS
 * (throughput,interleaved_117,starved_713,race_930) make a smaller run. About 10 minutes
 * on 2 cores at the defaults (each 150 s deadline a peer runs into included).
 */
import "./cluster/on-cluster.ts";
import { KubeConfig } from "@kubernetes/client-node";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "../../cli/wait.ts";
import type { RunningControlPlane } from "../../cluster/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import { HttpCluster } from "../support/http-cluster.ts";
import type { Progress, Report } from "./cluster/figures.ts";
import { benchGangRows } from "./cluster/gang.ts";
import { askedFor, goVersion, parentArgv } from "./cluster/go.ts";
import { clusterBench, POD, WAIT_MS, type ClusterBench } from "./cluster/stack.ts";
import { openWatch } from "./cluster/watch.ts";
import { coschedulingBinary, installCoscheduling, startCoschedulingPlane } from "./gang-peers/coscheduling.ts";
import { Lab, type LabCluster, type PeerHooks } from "./gang-peers/lab.ts";
import { PEERS, type PeerName } from "./gang-peers/peers.ts";
import { scenarios, WHOLE_NODE_MILLIS, type Scenario } from "./gang-peers/scenarios.ts";
import { relayBundle, relayIdle } from "./util.ts";

const NODES = Number(process.env.EDGELOOP_BENCH_PEERS_NODES ?? 16);
const PODS = Number(process.env.EDGELOOP_BENCH_PEERS_PODS ?? 1_024);
const NODE_NAMES = Array.from({ length: NODES }, (_, i) => `sim-node-${i + 1}`);

/** The items of a comma-separated variable that are among `known` (all of them when unset); throws naming an unknown one. */
function picked<T extends string>(variable: string, known: readonly T[]): T[] {
  const names = (process.env[variable] ?? known.join(",")).split(",").filter(Boolean);
  const unknown = names.filter((n) => !(known as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`${variable} names ${unknown.join(", ")}, not one of ${known.join(", ")}`);
  return names as T[];
}

/** Targets: edgeloop's, from issue 25 (the peers are measured, not judged). */
function targetOf(peer: PeerName, metric: string): string | undefined {
  if (peer !== "edgeloop") return undefined;
  if (metric.endsWith("half_placed_groups") || metric === "pods_bound_before_group_complete") return "= 0";
  if (metric.endsWith("_completed")) return "= 1";
  return undefined;
}

/** Runs every scenario for one peer, each in a namespace of its own; reports its figures and returns its pods/s. */
async function runPeer(peer: PeerName, on: LabCluster, hooks: PeerHooks, chosen: readonly Scenario[], report: Report, progress: Progress): Promise<number | undefined> {
  let podsPerSecond: number | undefined;
  for (const scenario of chosen) {
    progress(`${peer}: ${scenario.name}`);
    const lab = await Lab.open(peer, `${peer}-${scenario.name.replaceAll("_", "-")}`, on, hooks);
    try {
      await lab.probe(NODES, WHOLE_NODE_MILLIS);
      for (const figure of await scenario.run(lab, NODES)) {
        const metric = scenario.name === "throughput" ? figure.metric : `${scenario.name}_${figure.metric}`;
        const target = targetOf(peer, metric);
        report({ metric: `${peer}_${metric}`, value: figure.value, unit: figure.unit, ...(target === undefined ? {} : { target }) });
        if (metric === "pods_per_second") podsPerSecond = figure.value;
        progress(`${peer}: ${metric} = ${figure.value} ${figure.unit}`);
      }
      if (lab.missedByWatch > 0) progress(`${peer}: ${scenario.name}: ${lab.missedByWatch} bind(s) seen by a list before the watch (times of those to 0.5 s)`);
    } finally {
      await lab.close();
    }
  }
  return podsPerSecond;
}

/** edgeloop waits for its queue: every group provisional with the pods so far, the relay idle; after cleaning, an empty queue. */
function edgeloopHooks(bench: ClusterBench): PeerHooks {
  return {
    async settle(lab, groups, present) {
      const ready = async (): Promise<number> => (await benchGangRows(bench, lab.namespace)).filter((row) => row.state === "provisional" && row.present === present).length;
      await waitFor("every group provisional in the gang queue", ready, (count) => count === groups.length, { timeoutMs: WAIT_MS, intervalMs: 500 });
      await relayIdle(bench.relay.metrics, WAIT_MS);
    },
    async drained() {
      await waitFor("an empty gang queue", async () => (await benchGangRows(bench)).length, (count) => count === 0, { timeoutMs: WAIT_MS, intervalMs: 500 });
      await relayIdle(bench.relay.metrics, WAIT_MS);
    },
  };
}

/** kube-scheduler's peers: a sentinel pod bound shows the queue was worked through; nothing to wait for after cleaning. */
const SCHEDULER_HOOKS: PeerHooks = {
  settle: (lab) => lab.sentinel("sentinel"),
  drained: () => Promise.resolve(),
};

/** edgeloop and native, on one control plane with edgeloop installed (its kube-scheduler is the release's, gang gates on). */
async function releasePlane(peers: readonly PeerName[], chosen: readonly Scenario[], report: Report, progress: Progress): Promise<Map<PeerName, number | undefined>> {
  const rates = new Map<PeerName, number | undefined>();
  const script = await relayBundle();
  try {
    const bench = await clusterBench(NODE_NAMES, script, progress, { extraControllerDirs: [] });
    try {
      const on: LabCluster = { cluster: bench.cluster, watchPods: (onEvent) => bench.cluster.watch(POD, onEvent) };
      for (const peer of peers) rates.set(peer, await runPeer(peer, on, peer === "edgeloop" ? edgeloopHooks(bench) : SCHEDULER_HOOKS, chosen, report, progress));
    } finally {
      await bench.stop();
    }
  } finally {
    rmSync(dirname(script), { recursive: true, force: true });
  }
  return rates;
}

/** coscheduling, on a control plane of its own whose scheduler is scheduler-plugins'; undefined (said why) when it cannot be built or started. */
async function coschedulingPlane(chosen: readonly Scenario[], report: Report, progress: Progress): Promise<number | undefined> {
  let plane: RunningControlPlane | undefined;
  const stateDir = mkdtempSync(join(tmpdir(), "edgeloop-peers-"));
  try {
    const binary = await coschedulingBinary(progress);
    progress(`coscheduling: starting a control plane with ${NODES} kwok node(s), scheduler-plugins' kube-scheduler in place of the release's`);
    plane = await startCoschedulingPlane(join(stateDir, "cluster"), NODE_NAMES, binary, progress);
  } catch (error) {
    process.stderr.write(`bench gang-peers: coscheduling not measured: ${(error as Error).message}\n`);
    rmSync(stateDir, { recursive: true, force: true });
    return undefined;
  }
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfigPath);
  const pods = await openWatch(kc, POD);
  try {
    const cluster = new HttpCluster(kc);
    await installCoscheduling(cluster);
    return await runPeer("coscheduling", { cluster, watchPods: (onEvent) => pods.subscribe(onEvent) }, SCHEDULER_HOOKS, chosen, report, progress);
  } finally {
    pods.close();
    await plane.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: "gang-peers",
  async run(report, progress) {
    const peers = picked("EDGELOOP_BENCH_PEERS", PEERS);
    const all = scenarios(PODS);
    const names = picked("EDGELOOP_BENCH_PEERS_SCENARIOS", all.map((s) => s.name));
    const chosen = all.filter((s) => names.includes(s.name));
    const go = goVersion();
    if (go === undefined) {
      process.stderr.write("bench gang-peers: not run: Go is missing (the real control plane and scheduler-plugins are built from Go modules; install Go 1.26 or newer)\n");
      if (askedFor(relative(ROOT, fileURLToPath(import.meta.url)), parentArgv())) process.exit(1);
      return;
    }
    progress(`${go}; ${NODES} nodes; peers ${peers.join(", ")}; scenarios ${names.join(", ")}`);
    const started = performance.now();
    const onRelease = peers.filter((p) => p !== "coscheduling");
    const rates = onRelease.length > 0 ? await releasePlane(onRelease, chosen, report, progress) : new Map<PeerName, number | undefined>();
    if (peers.includes("coscheduling")) rates.set("coscheduling", await coschedulingPlane(chosen, report, progress));
    const ours = rates.get("edgeloop");
    for (const [peer, rate] of rates) {
      if (peer === "edgeloop" || ours === undefined || rate === undefined || rate === 0) continue;
      report({ metric: `edgeloop_ratio_to_${peer}_pods_per_second`, value: Math.round((ours / rate) * 100) / 100, unit: "x", target: ">= 1" });
    }
    report({ metric: "nodes", value: NODES, unit: "nodes" });
    progress(`done in ${Math.round((performance.now() - started) / 1000)} s`);
  },
};
export default bench;
