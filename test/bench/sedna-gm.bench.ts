/**
 * Sedna beside upstream's GlobalManager on the real control plane (issue 26 item 7,
 * ADR 0029): in one run, on one control plane (`cluster/`, kwok nodes `cloud`, `edge1`,
 * `edge2`), the same workloads (`./sedna-gm/workloads.ts`: FederatedLearningJobs and
 * JointInferenceServices) reconciled
 *
 * - by **edgeloop**, installed as `npm run test:cluster` installs it, the relay a process
 *   of its own, the Worker in workerd (the serverless hop included), in namespace
 *   `edgeloop-heal`;
 * - then by **gm**, upstream Sedna's GlobalManager v0.7.0 (`./sedna-gm/gm.ts`: a binary
 *   built by hand from upstream's source, EDGELOOP_BENCH_GM_BINARY and
 *   EDGELOOP_BENCH_GM_SOURCE, or its Go module where a proxy serves it), run as a process against the control plane's kubeconfig with
 *   its config file, watching namespace `gm-heal` (edgeloop's relay stopped and its
 *   webhook configurations removed first, so one controller reconciles at a time and the
 *   GM's pods call no dead front) — when it can be built; otherwise its reason is
 *   printed and only edgeloop's figures are reported (`gm_binary_built` 0).
 *
 * For each controller and each workload (`fl`: training workers; `ji`: the edge and
 * cloud workers), the same code (`./sedna-gm/heal.ts`) measures self-heal from a pod's
 * deletion to its replacement **Running**, p50/p99, one at a time and at
 * EDGELOOP_BENCH_GM_RATE (50) deletions/s for 3 s; the replacements per deletion and the
 * duplicates (target 0); and over the whole run the CPU (% of one core) and memory (peak
 * and mean RSS) of each controller process: relay and workerd, or the GM. JI pods are
 * replaced by kube-controller-manager's ReplicaSet controller under both (each makes a
 * Deployment); the controllers' part there is keeping the Deployment. The machine's busy
 * share is reported beside, as it may be shared.
 *
 * Bench `sedna-gm`: `npm run bench -- sedna-gm` (or `-- sedna`, with the sim's Sedna
 * bench). EDGELOOP_BENCH_GM_FL_JOBS (50), EDGELOOP_BENCH_GM_JI_SERVICES (50),
 * EDGELOOP_BENCH_GM_DELETIONS (100 per workload, one at a time) make a smaller run;
 * EDGELOOP_BENCH_GM_CONTROLLERS (edgeloop,gm) picks controllers.
 */
import "./cluster/on-cluster.ts";
import { rmSync } from "node:fs";
import { dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Benchmark, Figure } from "../../scripts/bench.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import type { Progress, Report } from "./cluster/figures.ts";
import { askedFor, goVersion, parentArgv } from "./cluster/go.ts";
import { clusterBench, createNamespace, WAIT_MS, type BenchCluster } from "./cluster/stack.ts";
import { gmBinary, installUpstreamCrds, removeEdgeloopWebhooks, startGm, upstreamCrds } from "./sedna-gm/gm.ts";
import { healAtRate, healOneAtATime, type HealRun } from "./sedna-gm/heal.ts";
import { measureUse } from "./sedna-gm/usage.ts";
import { createWorkload, type Workload } from "./sedna-gm/workloads.ts";
import { childPid, percentile, relayBundle, stopChild, tenth } from "./util.ts";

const WORKLOAD: Workload = { flJobs: Number(process.env.EDGELOOP_BENCH_GM_FL_JOBS ?? 50), jiServices: Number(process.env.EDGELOOP_BENCH_GM_JI_SERVICES ?? 50) };
const DELETIONS = Number(process.env.EDGELOOP_BENCH_GM_DELETIONS ?? 100);
const RATE = Number(process.env.EDGELOOP_BENCH_GM_RATE ?? 50);
const RATE_SECONDS = 3;
const CONTROLLERS = ["edgeloop", "gm"] as const;
type Controller = (typeof CONTROLLERS)[number];

/** The slots each workload's deletions take. */
const WORKLOADS: Record<string, (slot: string) => boolean> = {
  fl: (slot) => slot.includes("/federatedlearningjob/") && slot.includes("/train/"),
  ji: (slot) => slot.includes("/jointinferenceservice/"),
};

type Measured = Omit<Figure, "bench">;

/** The controllers asked for (EDGELOOP_BENCH_GM_CONTROLLERS), each checked. */
function controllers(): Controller[] {
  const names = (process.env.EDGELOOP_BENCH_GM_CONTROLLERS ?? CONTROLLERS.join(",")).split(",").filter(Boolean);
  const unknown = names.filter((name) => !(CONTROLLERS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`EDGELOOP_BENCH_GM_CONTROLLERS names ${unknown.join(", ")}, not one of ${CONTROLLERS.join(", ")}`);
  return names as Controller[];
}

/** The figures of one run, each named `<prefix>_…`. */
function runFigures(prefix: string, run: HealRun): Measured[] {
  const running = run.heals.map((heal) => heal.runningMs).sort((a, b) => a - b);
  const created = run.heals.map((heal) => heal.createdMs).sort((a, b) => a - b);
  return [
    { metric: `${prefix}_heal_running_p50_ms`, value: tenth(percentile(running, 50)), unit: "ms" },
    { metric: `${prefix}_heal_running_p99_ms`, value: tenth(percentile(running, 99)), unit: "ms" },
    { metric: `${prefix}_heal_created_p99_ms`, value: tenth(percentile(created, 99)), unit: "ms" },
    { metric: `${prefix}_deletions`, value: run.deletions, unit: "count" },
    { metric: `${prefix}_not_healed`, value: run.waiting, unit: "count", target: "= 0" },
    { metric: `${prefix}_replacements_per_deletion`, value: Math.round((run.replacements / Math.max(1, run.deletions)) * 100) / 100, unit: "ratio", target: "= 1" },
    { metric: `${prefix}_duplicate_replacements`, value: run.duplicates, unit: "count", target: "= 0" },
  ];
}

/** Self-heal of each workload one at a time and at the rate, then the processes' use over all of it. */
async function measure(cluster: BenchCluster, controller: Controller, namespace: string, pids: Readonly<Record<string, number | undefined>>, progress: Progress): Promise<Measured[]> {
  const figures: Measured[] = [];
  const use = measureUse(pids);
  let healed = 0;
  for (const [workload, accept] of Object.entries(WORKLOADS)) {
    progress(`${controller}: ${workload}: ${DELETIONS} deletions one at a time`);
    const one = await healOneAtATime(cluster, DELETIONS, { namespace, accept });
    figures.push(...runFigures(`${controller}_${workload}`, one));
    progress(`${controller}: ${workload}: ${RATE} deletions/s for ${RATE_SECONDS} s`);
    const rate = await healAtRate(cluster, RATE, RATE * RATE_SECONDS, { namespace, accept });
    progress(`${controller}: ${workload}: ${rate.deletions} deleted at ${Math.round(rate.achievedRate)}/s, ${rate.skipped} skipped (every slot waiting), ${rate.waiting} not healed`);
    figures.push(...runFigures(`${controller}_${workload}_${RATE}ps`, rate));
    healed += one.deletions - one.waiting + rate.deletions - rate.waiting;
  }
  const used = use();
  figures.push({ metric: `${controller}_healed`, value: healed, unit: "count" });
  for (const [name, p] of Object.entries(used.processes)) {
    if (p.cpuMs === undefined || p.cpuPercent === undefined || p.rssPeakMiB === undefined) {
      progress(`${controller}: no /proc figures for ${name}`);
      continue;
    }
    // The runs of the two controllers last differently long (a heal that never comes waits
    // out its deadline), so CPU is compared per heal, not per second.
    figures.push({ metric: `${controller}_${name}_cpu_seconds`, value: Math.round(p.cpuMs / 10) / 100, unit: "s" });
    figures.push({ metric: `${controller}_${name}_cpu_ms_per_heal`, value: tenth(p.cpuMs / Math.max(1, healed)), unit: "ms" });
    figures.push({ metric: `${controller}_${name}_cpu_percent`, value: tenth(p.cpuPercent), unit: "% of a core" });
    figures.push({ metric: `${controller}_${name}_rss_peak_mib`, value: tenth(p.rssPeakMiB), unit: "MiB" });
    figures.push({ metric: `${controller}_${name}_rss_mean_mib`, value: tenth(p.rssMeanMiB ?? 0), unit: "MiB" });
  }
  figures.push({ metric: `${controller}_machine_busy_percent`, value: tenth(used.machineBusyPercent), unit: "%" });
  progress(`${controller}: measured over ${Math.round(used.wallMs / 1000)} s, machine ${Math.round(used.machineBusyPercent)}% busy (shared with other work)`);
  return figures;
}

/**
 * Edgeloop's figures that take the GM's as their target: its p99s no worse than the GM's
 * (issue 26), the relay's CPU per heal no more than the GM's and its resident memory
 * within 100 MiB (issue 35).
 */
function withGmTargets(edgeloop: readonly Measured[], gm: readonly Measured[]): Measured[] {
  const gmValue = new Map(gm.map((figure) => [figure.metric.replace(/^gm_/, ""), figure.value]));
  return edgeloop.map((figure) => {
    if (figure.metric === "edgeloop_relay_rss_peak_mib") return { ...figure, target: "<= 100" };
    if (figure.metric === "edgeloop_relay_cpu_ms_per_heal") {
      const peer = gmValue.get("gm_cpu_ms_per_heal");
      return peer === undefined ? figure : { ...figure, target: `<= ${peer}` };
    }
    const peer = figure.metric.endsWith("_heal_running_p99_ms") ? gmValue.get(figure.metric.replace(/^edgeloop_/, "")) : undefined;
    return peer === undefined ? figure : { ...figure, target: `<= ${peer}` };
  });
}

/** What a run measured so far (a run that fails midway still reports it). */
interface Figures {
  built?: Measured;
  edgeloop: Measured[];
  gm: Measured[];
}

/** Every figure, edgeloop's p99s with the GM's as their targets. */
function allFigures(figures: Figures): Measured[] {
  return [...(figures.built ? [figures.built] : []), ...withGmTargets(figures.edgeloop, figures.gm), ...figures.gm];
}

/** Runs what was asked for on one control plane, into `figures`. */
async function run(figures: Figures, progress: Progress, script: string): Promise<void> {
  const asked = controllers();
  const gm = asked.includes("gm") ? await gmBinary(progress) : undefined;
  if (gm !== undefined) figures.built = { metric: "gm_binary_built", value: "binary" in gm ? 1 : 0, unit: "bool", target: "= 1" };
  if (gm !== undefined && "missing" in gm) progress(`gm: not measured: ${gm.missing}`);
  const bench = await clusterBench(["cloud", "edge1", "edge2"], script, progress);
  try {
    if (asked.includes("edgeloop")) {
      await createNamespace(bench.cluster, "edgeloop-heal");
      progress(`edgeloop: ${WORKLOAD.flJobs} FL jobs, ${WORKLOAD.jiServices} JI services`);
      await createWorkload(bench.cluster, "edgeloop-heal", WORKLOAD, WAIT_MS);
      figures.edgeloop = await measure(bench.cluster, "edgeloop", "edgeloop-heal", { relay: bench.relay.child.pid, workerd: childPid("workerd") }, progress);
    }
    if (gm !== undefined && "binary" in gm) {
      // One controller at a time: edgeloop's relay would reconcile the GM's namespace too.
      await stopChild(bench.relay.child);
      await removeEdgeloopWebhooks(bench.cluster);
      await installUpstreamCrds(bench.cluster, upstreamCrds(gm.source));
      await createNamespace(bench.cluster, "gm-heal");
      const running = await startGm(gm.binary, bench.stack.kubeconfigPath, "gm-heal");
      try {
        progress(`gm: ${WORKLOAD.flJobs} FL jobs, ${WORKLOAD.jiServices} JI services (log ${running.logFile})`);
        await createWorkload(bench.cluster, "gm-heal", WORKLOAD, WAIT_MS);
        figures.gm = await measure(bench.cluster, "gm", "gm-heal", { gm: running.child.pid }, progress);
      } finally {
        await running.stop();
      }
    }
  } finally {
    await bench.stop();
  }
}

const bench: Benchmark = {
  name: "sedna-gm",
  async run(report: Report, progress) {
    const go = goVersion();
    if (go === undefined) {
      process.stderr.write("bench sedna-gm: not run: Go is missing (the real control plane is built from Go modules; install Go 1.26 or newer)\n");
      if (askedFor(relative(ROOT, fileURLToPath(import.meta.url)), parentArgv())) process.exit(1);
      return;
    }
    progress(`${go}; controllers ${controllers().join(", ")}`);
    const script = await relayBundle();
    const figures: Figures = { edgeloop: [], gm: [] };
    try {
      await run(figures, progress, script);
    } finally {
      for (const figure of allFigures(figures)) report(figure);
      rmSync(dirname(script), { recursive: true, force: true });
    }
  },
};
export default bench;
