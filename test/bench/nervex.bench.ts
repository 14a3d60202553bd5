/**
 * NerveX on the local stack (sim + Worker in workerd + a relay process): the time from a
 * NerveXJob's creation to its coordinator pod Running, over 200 jobs, and the replicas
 * API's latency as DI-engine's coordinator calls it (plain HTTP, no Content-Type): a POST
 * of 8 collectors and 2 learners until the reply (every pod and Service created), once
 * per coordinator, 200 calls. Distinct coordinators: the same body to the same
 * coordinator within the retry window is a retry, answered without creating anything.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { testStack } from "../e2e/harness.ts";
import { call } from "../support/di-engine-client.ts";
import { percentile, relayBundle, relayProcess, tenth, until } from "./util.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const JOBS = Number(process.env.EDGELOOP_BENCH_NERVEX_JOBS ?? 200);
const NAMESPACE = "rl";

function job(name: string): KubeObject {
  const template = (role: string): Record<string, unknown> => ({
    spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "nervex-container", image: "nervex:v0.0.5", command: ["/bin/bash", "-c"], args: [`python3 -u main.py ${role}`] }] },
  });
  return {
    apiVersion: "nervex.sensetime.com/v1alpha1",
    kind: "NerveXJob",
    metadata: { name, namespace: NAMESPACE },
    spec: { cleanPodPolicy: "Running", coordinator: { template: template("coordinator") }, collector: { template: template("collector") }, learner: { template: template("learner") } },
  } as KubeObject;
}

const bench: Benchmark = {
  name: "nervex",
  async run(report, progress) {
    const stack = await testStack({ nodes: ["node-1", "node-2", "node-3"] });
    await stack.relay.stop();
    const relay = await relayProcess(stack, await relayBundle());
    const server = new URL(stack.apiUrl).host;
    try {
      await stack.sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } as KubeObject);
      progress(`apply → coordinator Running: ${JOBS} jobs, one at a time`);
      const running: number[] = [];
      for (let i = 0; i < JOBS; i++) {
        const name = `job-${i}`;
        const started = performance.now();
        await stack.sim.cluster.create(job(name));
        await until(`${name}'s coordinator Running`, async () => ((await stack.sim.cluster.find(POD, NAMESPACE, `${name}-coordinator`)) as { status?: { phase?: string } } | undefined)?.status?.phase === "Running", 30_000);
        running.push(performance.now() - started);
      }
      running.sort((a, b) => a - b);
      report({ metric: "apply_to_coordinator_running_p50_ms", value: tenth(percentile(running, 50)), unit: "ms" });
      report({ metric: "apply_to_coordinator_running_p99_ms", value: tenth(percentile(running, 99)), unit: "ms", target: "<= 1000" });

      progress(`replicas API: ${JOBS} POSTs of 8 collectors + 2 learners over plain HTTP`);
      const latencies: number[] = [];
      for (let i = 0; i < JOBS; i++) {
        const body = { namespace: NAMESPACE, coordinator: `job-${i}-coordinator`, collectors: { replicas: 8, cpus: "100m", memory: "128Mi" }, learners: { replicas: 2, cpus: "100m", memory: "128Mi" } };
        const started = performance.now();
        const reply = await call(server, "POST", "/v1alpha1/replicas", body);
        latencies.push(performance.now() - started);
        if (reply.status !== 200 || reply.body.success !== true) throw new Error(`POST ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
      }
      const pods = (await stack.sim.cluster.list(POD, { namespace: NAMESPACE })).items.length;
      if (pods !== JOBS * 11) throw new Error(`expected ${JOBS * 11} pods, found ${pods}`);
      latencies.sort((a, b) => a - b);
      report({ metric: "replicas_post_8c2l_p50_ms", value: tenth(percentile(latencies, 50)), unit: "ms" });
      report({ metric: "replicas_post_8c2l_p99_ms", value: tenth(percentile(latencies, 99)), unit: "ms", target: "<= 50" });
    } finally {
      relay.child.kill("SIGTERM");
      await stack.stop();
    }
  },
};
export default bench;
