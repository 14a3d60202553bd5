/**
 * The relay's memory on the real control plane, as `../relay.bench.ts` measures it on the
 * sim: {@link CACHED_PODS} pods that no scheduler takes (`schedulerName: nobody`, so no
 * kwok runs them) are created, then a relay process is started and, once idle, its RSS
 * read. One kwok node.
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { waitFor } from "../../../cli/wait.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { inPool, relayIdle, relayProcess, stopChild, tenth } from "../util.ts";
import { clusterBench, POD, WAIT_MS } from "./stack.ts";
import type { Progress, Report } from "./figures.ts";

const CACHED_PODS = Number(process.env.EDGELOOP_BENCH_CLUSTER_CACHED_PODS ?? 10_000);
const CONCURRENCY = 32;

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}

/** The RSS of a relay process started with {@link CACHED_PODS} pods in the cluster. */
export async function relayMemory(report: Report, progress: Progress, script: string): Promise<void> {
  const bench = await clusterBench(["sim-node-1"], script, progress);
  try {
    await stopChild(bench.relay.child);
    progress(`relay: creating ${CACHED_PODS} pods, ${CONCURRENCY} at a time`);
    const pods = Array.from({ length: CACHED_PODS }, (_, i) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: `cached-${i}`, namespace: "default", labels: { app: "cached" } }, spec: { schedulerName: "nobody", containers: [{ name: "c", image: "busybox" }] } }) as KubeObject);
    await inPool(pods, CONCURRENCY, (pod) => bench.cluster.create(pod));
    await waitFor(`${CACHED_PODS} pods`, async () => (await bench.cluster.list(POD, { namespace: "default", labelSelector: "app=cached" })).items.length, (count) => count >= CACHED_PODS, { timeoutMs: WAIT_MS, intervalMs: 1_000 });
    progress("relay: starting a relay process, reading its RSS once it is idle");
    const relay = await relayProcess({ ...bench.stack, sim: { kubeconfigPath: bench.relayKubeconfigPath } }, script);
    try {
      await relayIdle(relay.metrics, WAIT_MS);
      report({ metric: CACHED_PODS === 10_000 ? "relay_rss_10k_pods_mib" : `relay_rss_${CACHED_PODS}_pods_mib`, value: tenth(rssMiB(relay.child.pid ?? 0)), unit: "MiB", target: "<= 150" });
    } finally {
      await stopChild(relay.child);
      if (!process.env.EDGELOOP_BENCH_RELAY_LOG) rmSync(dirname(relay.logFile), { recursive: true, force: true });
    }
  } finally {
    await bench.stop();
  }
}
