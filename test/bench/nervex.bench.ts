/**
 * NerveX on the local stack (sim + Worker in workerd + a relay process): the time from a
 * NerveXJob's creation to its coordinator pod Running, over 200 jobs, and the replicas
 * API's latency as DI-engine's coordinator calls it (plain HTTP, no Content-Type): a POST
 * of 8 collectors and 2 learners until the reply (every pod and Service created), once
 * per coordinator, 200 calls. Distinct coordinators: the same body to the same
 * coordinator within the retry window is a retry, answered without creating anything.
 *
 * Two figures for the POST: as a coordinator makes it (it waits for its replicas to come
 * up before it asks again: the next call after the last call's pods are Running), and
 * back to back (the next call at once, while the sim still schedules and starts the last
 * call's pods on the same 2 cores: a saturated machine, no target).
 */
import { waitFor } from "../../cli/wait.ts";
import { coordinatorProcess, job, NAMESPACE } from "./nervex-workload.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { testStack } from "../e2e/harness.ts";
import { percentile, relayBundle, relayProcess, tenth } from "./util.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const JOBS = Number(process.env.EDGELOOP_BENCH_NERVEX_JOBS ?? 200);
const WARM_UP = 5;


const bench: Benchmark = {
  name: "nervex",
  async run(report, progress) {
    // Room for every pod: 200 jobs of 21 pods, 4,000 of them asking 100m cpu (64 nodes of 8 cpus, 110 pods).
    const stack = await testStack({ nodes: 64 });
    await stack.relay.stop();
    const relay = await relayProcess(stack, await relayBundle());
    const server = new URL(stack.apiUrl).host;
    const coordinator = coordinatorProcess();
    try {
      await stack.sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } as KubeObject);
      progress(`apply → coordinator Running: ${JOBS} jobs, one at a time`);
      const running: number[] = [];
      for (let i = 0; i < JOBS; i++) {
        const name = `job-${i}`;
        const started = performance.now();
        await stack.sim.cluster.create(job(name));
        await waitFor(`${name}'s coordinator Running`, async () => ((await stack.sim.cluster.find(POD, NAMESPACE, `${name}-coordinator`)) as { status?: { phase?: string } } | undefined)?.status?.phase === "Running", (ok) => ok, { timeoutMs: 30_000, intervalMs: 20 });
        running.push(performance.now() - started);
      }
      running.sort((a, b) => a - b);
      report({ metric: "apply_to_coordinator_running_p50_ms", value: tenth(percentile(running, 50)), unit: "ms" });
      report({ metric: "apply_to_coordinator_running_p99_ms", value: tenth(percentile(running, 99)), unit: "ms", target: "<= 1000" });

      const post = async (job: string, memory: string): Promise<number> => {
        const body = { namespace: NAMESPACE, coordinator: `${job}-coordinator`, collectors: { replicas: 8, cpus: "100m", memory }, learners: { replicas: 2, cpus: "100m", memory } };
        const reply = await coordinator.call({ server, method: "POST", path: "/v1alpha1/replicas", body });
        if (reply.status !== 200 || !reply.success) throw new Error(`POST for ${job}: ${reply.status} ${reply.body}`);
        return reply.ms;
      };
      const replicasRunning = async (job: string, count: number): Promise<boolean> =>
        ((await stack.sim.cluster.list(POD, { namespace: NAMESPACE, labelSelector: `nervexjob-name=${job}` })).items as { status?: { phase?: string } }[]).filter((p) => p.status?.phase === "Running").length >= count;

      // Warm-up, not measured: the first calls compile the paths they take (V8's JIT in the
      // relay, the sim and workerd), which a coordinator meets once per process.
      progress(`replicas API: ${WARM_UP} warm-up POSTs`);
      for (let i = 0; i < WARM_UP; i++) {
        await stack.sim.cluster.create(job(`warm-${i}`));
        await waitFor(`warm-${i}'s coordinator Running`, () => replicasRunning(`warm-${i}`, 1), (ok) => ok, { timeoutMs: 30_000, intervalMs: 20 });
        await post(`warm-${i}`, "128Mi");
        await waitFor(`warm-${i}'s replicas Running`, () => replicasRunning(`warm-${i}`, 11), (ok) => ok, { timeoutMs: 30_000, intervalMs: 20 });
      }
      progress(`replicas API: ${JOBS} POSTs of 8 collectors + 2 learners over plain HTTP, each after the last one's pods run`);
      const paced: number[] = [];
      for (let i = 0; i < JOBS; i++) {
        paced.push(await post(`job-${i}`, "128Mi"));
        await waitFor(`job-${i}'s replicas Running`, () => replicasRunning(`job-${i}`, 11), (ok) => ok, { timeoutMs: 30_000, intervalMs: 20 });
      }
      progress(`replicas API: ${JOBS} POSTs back to back`);
      const burst: number[] = [];
      for (let i = 0; i < JOBS; i++) burst.push(await post(`job-${i}`, "256Mi"));
      const pods = (await stack.sim.cluster.list(POD, { namespace: NAMESPACE })).items.length;
      if (pods !== JOBS * 21 + WARM_UP * 11) throw new Error(`expected ${JOBS * 21 + WARM_UP * 11} pods, found ${pods}`);
      for (const [name, latencies, target] of [["replicas_post_8c2l", paced, "<= 50"], ["replicas_post_8c2l_back_to_back", burst, undefined]] as const) {
        latencies.sort((a, b) => a - b);
        report({ metric: `${name}_p50_ms`, value: tenth(percentile(latencies, 50)), unit: "ms" });
        report({ metric: `${name}_p99_ms`, value: tenth(percentile(latencies, 99)), unit: "ms", ...(target ? { target } : {}) });
      }
    } finally {
      coordinator.stop();
      relay.child.kill("SIGTERM");
      await stack.stop();
    }
  },
};
export default bench;
