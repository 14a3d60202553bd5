/**
 * NerveX's replicas API on the real control plane, as `../nervex.bench.ts` measures it on
 * the sim: {@link JOBS} NerveXJobs created one at a time (apply → coordinator Running
 * timed too), then, after {@link WARM_UP} warm-up calls, one POST of 8 collectors and 2
 * learners per coordinator, made by the DI-engine client in a process of its own
 * (`../coordinator-process.ts`), each after the last call's pods are Running. The pods
 * are scheduled by kube-scheduler on {@link NODES} kwok nodes. EDGELOOP_BENCH_CLUSTER_NERVEX_JOBS
 * (default 100: 2,155 pods on 40 nodes of 110 pods) sets the count.
 */
import { waitFor } from "../../../cli/wait.ts";
import { coordinatorProcess, job, NAMESPACE } from "../nervex-workload.ts";
import { percentile, tenth } from "../util.ts";
import { NODES } from "./gang.ts";
import { clusterBench, createNamespace, POD, type BenchCluster } from "./stack.ts";
import type { Progress, Report } from "./figures.ts";

const JOBS = Number(process.env.EDGELOOP_BENCH_CLUSTER_NERVEX_JOBS ?? 100);
const WARM_UP = 5;
/** Pods of a job once its replicas are up: the coordinator, 8 collectors, 2 learners. */
const JOB_PODS = 11;

async function running(cluster: BenchCluster, job: string, count: number): Promise<boolean> {
  return ((await cluster.list(POD, { namespace: NAMESPACE, labelSelector: `nervexjob-name=${job}` })).items as { status?: { phase?: string } }[]).filter((pod) => pod.status?.phase === "Running").length >= count;
}

/** NerveX's figures on a control plane of its own. */
export async function nervex(report: Report, progress: Progress, script: string): Promise<void> {
  const bench = await clusterBench(Array.from({ length: NODES }, (_, i) => `sim-node-${i + 1}`), script, progress);
  const coordinator = coordinatorProcess();
  try {
    const cluster = bench.cluster;
    const server = new URL(bench.stack.apiUrl).host;
    await createNamespace(cluster, NAMESPACE);
    progress(`nervex: apply → coordinator Running, ${JOBS} jobs one at a time`);
    const applied: number[] = [];
    for (let i = 0; i < JOBS; i++) {
      const started = performance.now();
      await cluster.create(job(`job-${i}`));
      await waitFor(`job-${i}'s coordinator Running`, () => running(cluster, `job-${i}`, 1), (ok) => ok, { timeoutMs: 30_000, intervalMs: 20 });
      applied.push(performance.now() - started);
    }
    applied.sort((a, b) => a - b);
    report({ metric: "nervex_apply_to_coordinator_running_p50_ms", value: tenth(percentile(applied, 50)), unit: "ms" });
    report({ metric: "nervex_apply_to_coordinator_running_p99_ms", value: tenth(percentile(applied, 99)), unit: "ms", target: "<= 1000" });

    const post = async (name: string): Promise<number> => {
      const body = { namespace: NAMESPACE, coordinator: `${name}-coordinator`, collectors: { replicas: 8, cpus: "100m", memory: "128Mi" }, learners: { replicas: 2, cpus: "100m", memory: "128Mi" } };
      const reply = await coordinator.call({ server, method: "POST", path: "/v1alpha1/replicas", body });
      if (reply.status !== 200 || !reply.success) throw new Error(`POST for ${name}: ${reply.status} ${reply.body}`);
      return reply.ms;
    };
    progress(`nervex: ${WARM_UP} warm-up POSTs`);
    for (let i = 0; i < WARM_UP; i++) {
      await cluster.create(job(`warm-${i}`));
      await waitFor(`warm-${i}'s coordinator Running`, () => running(cluster, `warm-${i}`, 1), (ok) => ok, { timeoutMs: 30_000, intervalMs: 20 });
      await post(`warm-${i}`);
      await waitFor(`warm-${i}'s replicas Running`, () => running(cluster, `warm-${i}`, JOB_PODS), (ok) => ok, { timeoutMs: 60_000, intervalMs: 20 });
    }
    progress(`nervex: ${JOBS} POSTs of 8 collectors + 2 learners over plain HTTP, each after the last one's pods run`);
    const paced: number[] = [];
    for (let i = 0; i < JOBS; i++) {
      paced.push(await post(`job-${i}`));
      await waitFor(`job-${i}'s replicas Running`, () => running(cluster, `job-${i}`, JOB_PODS), (ok) => ok, { timeoutMs: 60_000, intervalMs: 20 });
    }
    paced.sort((a, b) => a - b);
    report({ metric: "nervex_replicas_post_8c2l_p50_ms", value: tenth(percentile(paced, 50)), unit: "ms" });
    report({ metric: "nervex_replicas_post_8c2l_p99_ms", value: tenth(percentile(paced, 99)), unit: "ms", target: "<= 50" });
  } finally {
    coordinator.stop();
    await bench.stop();
  }
}
