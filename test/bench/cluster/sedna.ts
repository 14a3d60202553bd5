/**
 * Sedna self-heal on the real control plane, as `../sedna.bench.ts` measures it on the
 * sim (its jobs, its one-at-a-time loop, `../self-heal.ts` for the rates): the time from
 * a training pod's deletion (grace 0: gone from etcd at once) to its replacement's
 * creation as a watch of the API server sees it, over {@link DELETIONS} deletions one at
 * a time, then at each rate of deletions per second for {@link HEAL_SECONDS} s over
 * {@link HEAL_JOBS} jobs. Nodes: `cloud`, `edge1`, `edge2` (kwok).
 */
import { waitFor } from "../../../cli/wait.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { job } from "../sedna.bench.ts";
import { selfHealAtRate, selfHealOneAtATime } from "../self-heal.ts";
import { cpuSample, percentile, tenth } from "../util.ts";
import { clusterBench, createNamespace, POD, type BenchCluster } from "./stack.ts";
import type { Progress, Report } from "./figures.ts";

const DELETIONS = Number(process.env.EDGELOOP_BENCH_CLUSTER_HEAL_DELETIONS ?? 200);
const HEAL_RATES = (process.env.EDGELOOP_BENCH_HEAL_RATES ?? "50,100,200").split(",").filter(Boolean).map(Number);
const HEAL_JOBS = Number(process.env.EDGELOOP_BENCH_CLUSTER_HEAL_JOBS ?? 100);
const HEAL_SECONDS = 3;
const TRAIN = "federatedlearningjob.sedna.io/worker-type=train";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of labels

/**
 * The Model and both Datasets the jobs of `namespace` name, each in a host folder of its
 * own: upstream's GM mounts the folder of each URL at `/home/data/<folder>`, and two URLs
 * in one folder would give a pod the same mountPath twice, which kube-apiserver refuses.
 */
export async function references(cluster: BenchCluster, namespace: string): Promise<void> {
  await cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace }, spec: { url: "/models/fl/model.pb", format: "pb" } } as KubeObject);
  for (const node of ["edge1", "edge2"]) {
    await cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace }, spec: { url: `/datasets/${node}/train.txt`, format: "txt", nodeName: node } } as KubeObject);
  }
}

/** The live training pods of `namespace`. */
async function trainingPods(cluster: BenchCluster, namespace: string): Promise<Obj[]> {
  return ((await cluster.list(POD, { namespace, labelSelector: TRAIN })).items as Obj[]).filter((pod) => !pod.metadata.deletionTimestamp);
}

/** One deletion at a time: each waits for its replacement; the latencies, ascending. */
async function oneAtATime(cluster: BenchCluster): Promise<number[]> {
  for (let i = 0; i < 10; i++) await cluster.create(job(`heal-${i}`));
  await waitFor("20 training pods", async () => (await trainingPods(cluster, "default")).length, (count) => count === 20, { timeoutMs: 60_000, intervalMs: 100 });
  return selfHealOneAtATime(cluster, "default", DELETIONS);
}

/** Sedna's self-heal figures on a control plane of its own. */
export async function sedna(report: Report, progress: Progress, script: string): Promise<void> {
  const bench = await clusterBench(["cloud", "edge1", "edge2"], script, progress);
  try {
    const cluster = bench.cluster;
    await references(cluster, "default");
    progress(`sedna: self-heal, ${DELETIONS} training-pod deletions one at a time`);
    const latencies = await oneAtATime(cluster);
    report({ metric: "sedna_self_heal_p50_ms", value: tenth(percentile(latencies, 50)), unit: "ms" });
    report({ metric: "sedna_self_heal_p99_ms", value: tenth(percentile(latencies, 99)), unit: "ms", target: "<= 100" });
    if (HEAL_RATES.length === 0) return;

    progress(`sedna: self-heal at ${HEAL_RATES.join(", ")} deletions/s over ${HEAL_JOBS} jobs`);
    await createNamespace(cluster, "heal");
    await references(cluster, "heal");
    for (let i = 0; i < HEAL_JOBS; i++) await cluster.create(job(`rate-${i}`, "heal"));
    await waitFor(`${HEAL_JOBS * 2} training pods`, async () => (await trainingPods(cluster, "heal")).length, (count) => count === HEAL_JOBS * 2, { timeoutMs: 120_000, intervalMs: 250 });
    for (const rate of HEAL_RATES) {
      // The last run's status updates settle (as on the sim).
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const cpu = cpuSample({ relay: bench.relay.child.pid });
      const run = await selfHealAtRate(cluster, "heal", rate, rate * HEAL_SECONDS);
      const used = cpu();
      progress(`sedna: ${rate}/s: ${run.deleted} deleted at ${Math.round(run.achievedRate)}/s, ${run.skipped} skipped (every slot waiting), ${run.unhealed} not healed in 60 s; relay CPU ms per deletion ${used.othersMs["relay"] === undefined ? "?" : (used.othersMs["relay"] / Math.max(1, run.deleted)).toFixed(1)}; machine ${Math.round(used.machineBusy * 100)}% busy`);
      report({ metric: `sedna_self_heal_${rate}ps_p50_ms`, value: tenth(percentile(run.latencies, 50)), unit: "ms" });
      report({ metric: `sedna_self_heal_${rate}ps_p99_ms`, value: tenth(percentile(run.latencies, 99)), unit: "ms", ...(rate === 200 ? { target: "<= 100" } : {}) });
    }
  } finally {
    await bench.stop();
  }
}
