/**
 * The loop's speed on the local stack (sim + Worker in workerd + relay), with the test
 * controller `mirror` (a ConfigMap parent → one child): event-to-applied latency at
 * 100 events/s, reconciles/s through a resync of 10,000 parents, and the RSS of a relay
 * process holding 10,000 pods in its caches.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../../functions/protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import { testStack } from "../e2e/harness.ts";
import { onCreated, percentile, tenth, until } from "./util.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
const RATE = 100;
const LATENCY_EVENTS = 1_000;
const PARENTS = 10_000;
const CACHED_PODS = 10_000;

const parent = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { v: "1" } }) as KubeObject;

async function reconcilesTotal(opsUrl: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  return [...text.matchAll(/^edgeloop_reconciles_total\{controller="mirror",result="ok"\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const bench: Benchmark = {
  name: "relay",
  async run(report, progress) {
    const stack = await testStack({ nodes: 1, concurrency: 32 });
    try {
      progress(`latency: ${LATENCY_EVENTS} parents at ${RATE}/s, parent created → child applied`);
      const createdAt = new Map<string, number>();
      const latencies: number[] = [];
      const stopWatch = onCreated(stack.sim.cluster, CM, (object, at) => {
        const of = object.metadata.labels?.["edgeloop.test/mirror-of"];
        const start = of === undefined ? undefined : createdAt.get(of);
        if (start !== undefined) latencies.push(at - start);
      });
      const t0 = performance.now();
      for (let i = 0; i < LATENCY_EVENTS; i++) {
        const wait = t0 + (i * 1000) / RATE - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        const name = `lat-${i}`;
        createdAt.set(name, performance.now());
        await stack.sim.cluster.create(parent(name));
      }
      await until("every child", () => latencies.length === LATENCY_EVENTS, 30_000);
      stopWatch();
      latencies.sort((a, b) => a - b);
      report({ metric: "event_to_applied_p50_ms", value: tenth(percentile(latencies, 50)), unit: "ms" });
      report({ metric: "event_to_applied_p99_ms", value: tenth(percentile(latencies, 99)), unit: "ms", target: "<= 50" });

      progress(`throughput: ${PARENTS} parents, then a full resync`);
      for (let i = 0; i < PARENTS; i++) await stack.sim.cluster.create(parent(`tp-${i}`));
      await until("10,000 children", async () => (await stack.sim.cluster.list(CM, { namespace: "default", labelSelector: "edgeloop.test/mirror-of" })).items.length >= PARENTS + LATENCY_EVENTS, 120_000);
      await until("the queue to drain", async () => /edgeloop_queue_depth 0\b/.test(await (await fetch(`${stack.relay.opsUrl}/metrics`)).text()), 60_000);
      const before = await reconcilesTotal(stack.relay.opsUrl);
      const started = performance.now();
      stack.relay.engine.resyncAll("bench");
      const parents = PARENTS + LATENCY_EVENTS;
      await until("every parent to be reconciled", async () => (await reconcilesTotal(stack.relay.opsUrl)) - before >= parents, 120_000);
      await until("the queue to drain", async () => /edgeloop_queue_depth 0\b[\s\S]*edgeloop_queue_in_flight 0\b/.test(await (await fetch(`${stack.relay.opsUrl}/metrics`)).text()), 120_000);
      const done = await reconcilesTotal(stack.relay.opsUrl);
      const seconds = (performance.now() - started) / 1000;
      report({ metric: "resync_reconciles_per_second", value: Math.round((done - before) / seconds), unit: "1/s", target: ">= 1000" });
      report({ metric: "resync_reconciles", value: done - before, unit: "count" });

      progress(`memory: a relay process caching ${CACHED_PODS} pods`);
      for (let i = 0; i < CACHED_PODS; i++) {
        await stack.sim.cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: `cached-${i}`, namespace: "default", labels: { app: "cached" } }, spec: { schedulerName: "nobody", containers: [{ name: "c", image: "busybox" }] } } as KubeObject);
      }
      const child = spawn(join(ROOT, "node_modules/.bin/node"), ["relay/main.ts", "--worker-url", stack.worker.url, "--kubeconfig", stack.sim.kubeconfigPath ?? "", "--ops-port", "0", "--log-level", "info"], {
        cwd: ROOT,
        env: { ...process.env, EDGELOOP_SECRET: stack.secret },
        stdio: ["ignore", "pipe", "inherit"],
      });
      try {
        let opsUrl = "";
        child.stdout.on("data", (chunk: Buffer) => {
          opsUrl ||= /"ops":"(http:\/\/[^"]+)"/.exec(chunk.toString())?.[1] ?? "";
        });
        await until("the relay process to be ready", async () => opsUrl !== "" && (await fetch(`${opsUrl}/readyz`).then((r) => r.ok, () => false)), 60_000);
        global.gc?.();
        await new Promise((resolve) => setTimeout(resolve, 2_000)); // let the process settle after its initial lists
        report({ metric: "relay_rss_10k_pods_mib", value: tenth(rssMiB(child.pid ?? 0)), unit: "MiB", target: "<= 150" });
      } finally {
        child.kill("SIGTERM");
      }
    } finally {
      await stack.stop();
    }
  },
};
export default bench;
