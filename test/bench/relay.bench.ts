/**
 * The loop's speed on the local stack, each part in its own process as deployed: the
 * sim (with this benchmark driving it), the Worker in workerd, and a relay process. The
 * test controller `mirror` (a labelled ConfigMap → one child ConfigMap) does the work.
 * Figures: event-to-applied latency at 100 events/s, reconciles/s through a resync of
 * 10,000 parents, and the RSS of a relay process holding 10,000 pods in its caches.
 */
import { readFileSync } from "node:fs";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { testStack } from "../e2e/harness.ts";
import { onCreated, percentile, relayBundle, relayProcess, tenth } from "./util.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
const RATE = 100;
const LATENCY_EVENTS = 1_000;
const PARENTS = 10_000;
const CACHED_PODS = 10_000;

const parent = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { v: "1" } }) as KubeObject;

function reconciles(metrics: string): number {
  return Number(/^edgeloop_reconciles_total\{controller="mirror",result="ok"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
}

const idle = (metrics: string): boolean => /^edgeloop_queue_depth 0$/m.test(metrics) && /^edgeloop_queue_in_flight 0$/m.test(metrics);

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}

async function loop(report: Parameters<Benchmark["run"]>[0], progress: (m: string) => void, script: string): Promise<void> {
  const stack = await testStack({ nodes: 1 });
  await stack.relay.stop();
  const relay = await relayProcess(stack, script);
  try {
    progress(`latency: ${LATENCY_EVENTS} parents at ${RATE}/s, parent created → child applied`);
    const createdAt = new Map<string, number>();
    const latencies: number[] = [];
    const stopWatch = onCreated(stack.sim.cluster, CM, (object, at) => {
      const start = createdAt.get(object.metadata.labels?.["edgeloop.test/mirror-of"] ?? "");
      if (start !== undefined) latencies.push(at - start);
    });
    const t0 = performance.now();
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const wait = t0 + (i * 1000) / RATE - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      createdAt.set(`lat-${i}`, performance.now());
      await stack.sim.cluster.create(parent(`lat-${i}`));
    }
    await waitFor("every child", () => latencies.length, (count) => count === LATENCY_EVENTS, { timeoutMs: 30_000, intervalMs: 20 });
    stopWatch();
    latencies.sort((a, b) => a - b);
    report({ metric: "event_to_applied_p50_ms", value: tenth(percentile(latencies, 50)), unit: "ms" });
    report({ metric: "event_to_applied_p99_ms", value: tenth(percentile(latencies, 99)), unit: "ms", target: "<= 50" });

    progress(`throughput: ${PARENTS} more parents, then a full resync (SIGHUP)`);
    for (let i = 0; i < PARENTS; i++) await stack.sim.cluster.create(parent(`tp-${i}`));
    await waitFor("every child", async () => (await stack.sim.cluster.list(CM, { namespace: "default", labelSelector: "edgeloop.test/mirror-of" })).items.length, (count) => count === PARENTS + LATENCY_EVENTS, { timeoutMs: 180_000, intervalMs: 20 });
    await waitFor("the relay to be idle", async () => idle(await relay.metrics()), (ok) => ok, { timeoutMs: 60_000, intervalMs: 20 });
    const before = reconciles(await relay.metrics());
    const started = performance.now();
    relay.child.kill("SIGHUP");
    await waitFor("every parent reconciled", async () => reconciles(await relay.metrics()) - before, (count) => count >= PARENTS + LATENCY_EVENTS, { timeoutMs: 180_000, intervalMs: 20 });
    const seconds = (performance.now() - started) / 1000;
    report({ metric: "resync_reconciles_per_second", value: Math.round((PARENTS + LATENCY_EVENTS) / seconds), unit: "1/s", target: ">= 1000" });
  } finally {
    relay.child.kill("SIGTERM");
    await stack.stop();
  }
}

async function memory(report: Parameters<Benchmark["run"]>[0], progress: (m: string) => void, script: string): Promise<void> {
  const stack = await testStack({ nodes: 1 });
  await stack.relay.stop();
  progress(`memory: a relay process caching ${CACHED_PODS} pods`);
  for (let i = 0; i < CACHED_PODS; i++) {
    await stack.sim.cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: `cached-${i}`, namespace: "default", labels: { app: "cached" } }, spec: { schedulerName: "nobody", containers: [{ name: "c", image: "busybox" }] } } as KubeObject);
  }
  const relay = await relayProcess(stack, script);
  try {
    await waitFor("the relay to be idle", async () => idle(await relay.metrics()), (ok) => ok, { timeoutMs: 60_000, intervalMs: 20 });
    report({ metric: "relay_rss_10k_pods_mib", value: tenth(rssMiB(relay.child.pid ?? 0)), unit: "MiB", target: "<= 150" });
  } finally {
    relay.child.kill("SIGTERM");
    await stack.stop();
  }
}

const bench: Benchmark = {
  name: "relay",
  async run(report, progress) {
    progress("bundling the relay (dist/relay.mjs, as the image runs it)");
    const script = await relayBundle();
    await loop(report, progress, script);
    await memory(report, progress, script);
  },
};
export default bench;
