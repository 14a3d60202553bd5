/**
 * Sedna on the local stack (sim + Worker in workerd + relay): self-heal latency from a
 * training pod's deletion to its replacement's creation over 200 deletions, and the time
 * for 1,000 FederatedLearningJobs of 3 workers, created at once, to be fully materialised
 * (every pod exists, every job Running).
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { testStack } from "../e2e/harness.ts";
import { onCreated, percentile, relayBundle, relayProcess, tenth, until } from "./util.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const DELETIONS = 200;
const JOBS = Number(process.env.EDGELOOP_BENCH_FL_JOBS ?? 1_000);

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested status

function job(name: string, namespace = "default"): KubeObject {
  const container = (image: string): Obj => ({ name: "worker", image, env: [{ name: "exit_round", value: "3" }] });
  return {
    apiVersion: "sedna.io/v1alpha1",
    kind: "FederatedLearningJob",
    metadata: { name, namespace },
    spec: {
      aggregationWorker: { model: { name: "model" }, template: { spec: { nodeName: "cloud", terminationGracePeriodSeconds: 0, containers: [container("agg:v1")] } } },
      trainingWorkers: ["edge1", "edge2"].map((node) => ({ dataset: { name: `${node}-data` }, template: { spec: { nodeName: node, terminationGracePeriodSeconds: 0, containers: [container("train:v1")] } } })),
    },
  } as KubeObject;
}

const bench: Benchmark = {
  name: "sedna",
  async run(report, progress) {
    const stack = await testStack({ nodes: ["cloud", "edge1", "edge2"] });
    // The relay runs in its own process, as deployed, not on the sim's event loop.
    await stack.relay.stop();
    const relay = await relayProcess(stack, await relayBundle());
    try {
      for (const object of [
        { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "default" }, spec: { url: "/m", format: "pb" } },
        { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "edge1-data", namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: "edge1" } },
        { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "edge2-data", namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: "edge2" } },
      ]) {
        await stack.sim.cluster.create(object as KubeObject);
      }

      progress(`self-heal: ${DELETIONS} training-pod deletions, one at a time`);
      for (let i = 0; i < 10; i++) await stack.sim.cluster.create(job(`heal-${i}`));
      const live = async (): Promise<Obj[]> => ((await stack.sim.cluster.list(POD, { namespace: "default", labelSelector: "federatedlearningjob.sedna.io/worker-type=train" })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
      await until("20 training pods", async () => (await live()).length === 20, 30_000);
      const latencies: number[] = [];
      let waiting: { slot: string; job: string; since: number } | undefined;
      const stop = onCreated(stack.sim.cluster, POD, (pod, at) => {
        const labels = pod.metadata.labels ?? {};
        if (waiting && labels["edgeloop.dev/worker"] === waiting.slot && labels["federatedlearningjob.sedna.io/name"] === waiting.job) {
          latencies.push(at - waiting.since);
          waiting = undefined;
        }
      });
      for (let i = 0; i < DELETIONS; i++) {
        const pods = await live();
        const victim = pods[i % pods.length] as Obj;
        waiting = { slot: victim.metadata.labels["edgeloop.dev/worker"], job: victim.metadata.labels["federatedlearningjob.sedna.io/name"], since: performance.now() };
        await stack.sim.cluster.delete(POD, "default", victim.metadata.name, { gracePeriodSeconds: 0 });
        await until("the replacement", () => waiting === undefined, 10_000);
      }
      stop();
      if (process.env.EDGELOOP_BENCH_DEBUG) progress(`slow heals: ${latencies.map((l, i) => [i, Math.round(l)]).filter(([, l]) => (l ?? 0) > 100).map(([i, l]) => `#${i}=${l}ms`).join(", ")}`);
      if (process.env.EDGELOOP_BENCH_DEBUG) progress((await relay.metrics()).split("\n").filter((l) => /retry|error|apply_errors/.test(l)).join("\n"));
      latencies.sort((a, b) => a - b);
      report({ metric: "self_heal_p50_ms", value: tenth(percentile(latencies, 50)), unit: "ms" });
      report({ metric: "self_heal_p99_ms", value: tenth(percentile(latencies, 99)), unit: "ms", target: "<= 100" });

      progress(`materialise: ${JOBS} jobs of 3 workers created at once`);
      await stack.sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "fleet" } } as KubeObject);
      await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "fleet" }, spec: { url: "/m", format: "pb" } } as KubeObject);
      for (const node of ["edge1", "edge2"]) {
        await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: "fleet" }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
      }
      const started = performance.now();
      await Promise.all(Array.from({ length: JOBS }, (_, i) => stack.sim.cluster.create(job(`fl-${i}`, "fleet"))));
      await until("every pod to exist", async () => (await stack.sim.cluster.list(POD, { namespace: "fleet" })).items.length >= JOBS * 3, 120_000);
      const podsAt = performance.now();
      await until("every job Running", async () => ((await stack.sim.cluster.list(FL, { namespace: "fleet" })).items as Obj[]).every((j) => j.status?.phase === "Running"), 120_000);
      const runningAt = performance.now();
      report({ metric: "fl_1000_jobs_all_pods_s", value: tenth((podsAt - started) / 1000), unit: "s" });
      report({ metric: "fl_1000_jobs_all_running_s", value: tenth((runningAt - started) / 1000), unit: "s", target: "<= 10" });
      if (process.env.EDGELOOP_BENCH_DEBUG) progress((await relay.metrics()).split("\n").filter((l) => l.startsWith("edgeloop_reconciles_total")).join("\n"));
    } finally {
      relay.child.kill("SIGTERM");
      await stack.stop();
    }
  },
};
export default bench;
