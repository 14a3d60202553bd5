/**
 * Sedna on the local stack (sim + Worker in workerd + relay): self-heal latency from a
 * training pod's deletion to its replacement's creation over 200 deletions one at a time,
 * then at steady rates of deletions per second (EDGELOOP_BENCH_HEAL_RATES, default
 * 50,100,200; 3 s at each, over 100 jobs), and the time
 * for 1,000 FederatedLearningJobs of 3 workers, created at once, to be fully materialised
 * (every pod exists, every job Running); then the start of a relay with 2,000 jobs in the
 * cluster, each naming its own Model and Datasets (informers synced and the initial queue
 * drained). EDGELOOP_BENCH_SEDNA_PARTS picks parts (default heal,materialise,start).
 */
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { testStack } from "../e2e/harness.ts";
import { selfHealAtRate } from "./self-heal.ts";
import { flJob as job, type JobRefs } from "../support/fl-job.ts";
import { childPid, cpuSample, inPool, metricSum, onCreated, percentile, relayBundle, relayIdle, relayProcess, tenth } from "./util.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const DELETIONS = 200;
const JOBS = Number(process.env.EDGELOOP_BENCH_FL_JOBS ?? 1_000);
const HEAL_RATES = (process.env.EDGELOOP_BENCH_HEAL_RATES ?? "50,100,200").split(",").filter(Boolean).map(Number);
/** Jobs the rate runs delete from (200 training pods), and how long each rate lasts. */
const HEAL_JOBS = 100;
const HEAL_SECONDS = 3;
/** Jobs in the cluster when a relay starts (each with its own Model and two Datasets). */
const START_JOBS = Number(process.env.EDGELOOP_BENCH_START_JOBS ?? 2_000);
const PARTS = new Set((process.env.EDGELOOP_BENCH_SEDNA_PARTS ?? "heal,materialise,start").split(","));

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested status

// The FederatedLearningJob every Sedna bench, chaos and e2e test makes (aggregator on `cloud`, a trainer on `edge1` and `edge2`).
export { job };

/** Counters that grew between two scrapes, per deletion (a debugging aid). */
function counterGrowth(before: string, after: string, deletions: number): string {
  const values = (text: string): Map<string, number> => new Map(text.split("\n").filter((line) => line && !line.startsWith("#") && !/_bucket|_sum\{|_sum /.test(line)).map((line) => [line.slice(0, line.lastIndexOf(" ")), Number(line.slice(line.lastIndexOf(" ") + 1))]));
  const old = values(before);
  return [...values(after)].filter(([key, value]) => value - (old.get(key) ?? 0) > 0).map(([key, value]) => `${key} +${((value - (old.get(key) ?? 0)) / Math.max(1, deletions)).toFixed(2)}`).join("\n");
}

type Report = Parameters<Benchmark["run"]>[0];

/** Self-heal latency (one at a time, then at rates) and the materialisation of many jobs at once. */
async function endToEnd(report: Report, progress: (message: string) => void, script: string): Promise<void> {
  const stack = await testStack({ nodes: ["cloud", "edge1", "edge2"] });
  // The relay runs in its own process, as deployed, not on the sim's event loop.
  await stack.relay.stop();
  const relay = await relayProcess(stack, script);
  try {
    for (const object of [
      { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "default" }, spec: { url: "/m", format: "pb" } },
      { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "edge1-data", namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: "edge1" } },
      { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "edge2-data", namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: "edge2" } },
    ]) {
      await stack.sim.cluster.create(object as KubeObject);
    }

    if (PARTS.has("heal")) {
      progress(`self-heal: ${DELETIONS} training-pod deletions, one at a time`);
      for (let i = 0; i < 10; i++) await stack.sim.cluster.create(job(`heal-${i}`));
      const live = async (): Promise<Obj[]> => ((await stack.sim.cluster.list(POD, { namespace: "default", labelSelector: "federatedlearningjob.sedna.io/worker-type=train" })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
      await waitFor("20 training pods", async () => (await live()).length, (count) => count === 20, { timeoutMs: 30_000, intervalMs: 20 });
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
        await waitFor("the replacement", () => waiting, (pending) => pending === undefined, { timeoutMs: 10_000, intervalMs: 20 });
      }
      stop();
      if (process.env.EDGELOOP_BENCH_DEBUG) progress(`slow heals: ${latencies.map((l, i) => [i, Math.round(l)]).filter(([, l]) => (l ?? 0) > 100).map(([i, l]) => `#${i}=${l}ms`).join(", ")}`);
      if (process.env.EDGELOOP_BENCH_DEBUG) progress((await relay.metrics()).split("\n").filter((l) => /retry|error|apply_errors/.test(l)).join("\n"));
      latencies.sort((a, b) => a - b);
      report({ metric: "self_heal_p50_ms", value: tenth(percentile(latencies, 50)), unit: "ms" });
      report({ metric: "self_heal_p99_ms", value: tenth(percentile(latencies, 99)), unit: "ms", target: "<= 100" });

      if (HEAL_RATES.length > 0) {
        progress(`self-heal at ${HEAL_RATES.join(", ")} deletions/s: ${HEAL_JOBS} jobs`);
        await stack.sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "heal" } } as KubeObject);
        await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "heal" }, spec: { url: "/m", format: "pb" } } as KubeObject);
        for (const node of ["edge1", "edge2"]) {
          await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: "heal" }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
        }
        for (let i = 0; i < HEAL_JOBS; i++) await stack.sim.cluster.create(job(`rate-${i}`, "heal"));
        const trainPods = async (): Promise<number> => ((await stack.sim.cluster.list(POD, { namespace: "heal", labelSelector: "federatedlearningjob.sedna.io/worker-type=train" })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp).length;
        await waitFor(`${HEAL_JOBS * 2} training pods`, trainPods, (count) => count === HEAL_JOBS * 2, { timeoutMs: 60_000, intervalMs: 100 });
        for (const rate of HEAL_RATES) {
          // The last run's status updates settle (its requeues are seconds away, so "idle" would wait for them).
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          const cpu = cpuSample({ relay: relay.child.pid, workerd: childPid("workerd") });
          const before = process.env.EDGELOOP_BENCH_DEBUG ? await relay.metrics() : "";
          const run = await selfHealAtRate(stack.sim.cluster, "heal", rate, rate * HEAL_SECONDS);
          const used = cpu();
          if (process.env.EDGELOOP_BENCH_DEBUG) progress(counterGrowth(before, await relay.metrics(), run.deleted));
          const perDeletion = (ms: number | undefined): string => (ms === undefined ? "?" : (ms / Math.max(1, run.deleted)).toFixed(1));
          progress(`${rate}/s: ${run.deleted} deleted at ${Math.round(run.achievedRate)}/s, ${run.skipped} skipped (every slot waiting), ${run.unhealed} not healed in 60 s; CPU ms per deletion: sim ${perDeletion(used.selfMs)}, relay ${perDeletion(used.othersMs["relay"])}, workerd ${perDeletion(used.othersMs["workerd"])}; machine ${Math.round(used.machineBusy * 100)}% busy`);
          const spread = (latencies: readonly number[]): string => `p50 ${tenth(percentile(latencies, 50))} ms, p99 ${tenth(percentile(latencies, 99))} ms`;
          progress(`${rate}/s: ${run.behindOther.length} heal(s) of a job already healing its other pod (behind that reconcile): ${spread(run.behindOther)}; the other ${run.alone.length}: ${spread(run.alone)}`);
          report({ metric: `self_heal_${rate}ps_p50_ms`, value: tenth(percentile(run.latencies, 50)), unit: "ms" });
          report({ metric: `self_heal_${rate}ps_p99_ms`, value: tenth(percentile(run.latencies, 99)), unit: "ms", ...(rate === 200 ? { target: "<= 100" } : {}) });
        }
      }
    }

    if (PARTS.has("materialise")) {
      progress(`materialise: ${JOBS} jobs of 3 workers created at once`);
      await stack.sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "fleet" } } as KubeObject);
      await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "fleet" }, spec: { url: "/m", format: "pb" } } as KubeObject);
      for (const node of ["edge1", "edge2"]) {
        await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: "fleet" }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
      }
      const started = performance.now();
      await Promise.all(Array.from({ length: JOBS }, (_, i) => stack.sim.cluster.create(job(`fl-${i}`, "fleet"))));
      await waitFor("every pod to exist", async () => (await stack.sim.cluster.list(POD, { namespace: "fleet" })).items.length, (count) => count >= JOBS * 3, { timeoutMs: 120_000, intervalMs: 20 });
      const podsAt = performance.now();
      await waitFor("every job Running", async () => ((await stack.sim.cluster.list(FL, { namespace: "fleet" })).items as Obj[]).every((j) => j.status?.phase === "Running"), (ok) => ok, { timeoutMs: 120_000, intervalMs: 20 });
      const runningAt = performance.now();
      report({ metric: "fl_1000_jobs_all_pods_s", value: tenth((podsAt - started) / 1000), unit: "s" });
      report({ metric: "fl_1000_jobs_all_running_s", value: tenth((runningAt - started) / 1000), unit: "s", target: "<= 10" });
      if (process.env.EDGELOOP_BENCH_DEBUG) progress((await relay.metrics()).split("\n").filter((l) => l.startsWith("edgeloop_reconciles_total")).join("\n"));
    }
  } finally {
    relay.child.kill("SIGTERM");
    await stack.stop();
  }
}

/**
 * A relay starting with {@link START_JOBS} jobs in the cluster, each naming its own Model
 * and Datasets (so every Model or Dataset event looks its parents up): seconds from the
 * process's spawn until `/readyz` (informers synced, Worker reachable), until every job
 * has been reconciled once (ready), and until the queue is drained (idle: other
 * controllers' keys included, such as the edge-autonomy Nodes, whose snapshots of every
 * pod on a node may be retried).
 */
async function relayStart(report: Report, progress: (message: string) => void, script: string): Promise<void> {
  const stack = await testStack({ nodes: ["cloud", "edge1", "edge2"] });
  await stack.relay.stop();
  let relay = await relayProcess(stack, script);
  try {
    progress(`relay start: ${START_JOBS} jobs, ${START_JOBS} Models, ${START_JOBS * 2} Datasets`);
    await stack.sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "start" } } as KubeObject);
    const indexes = Array.from({ length: START_JOBS }, (_, i) => i);
    const refs = (i: number): JobRefs => ({ model: `model-${i}`, datasets: (node) => `${node}-data-${i}` });
    await inPool(indexes, 16, async (i) => {
      await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: refs(i).model, namespace: "start" }, spec: { url: "/m", format: "pb" } } as KubeObject);
      for (const node of ["edge1", "edge2"]) {
        await stack.sim.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: refs(i).datasets(node), namespace: "start" }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
      }
      await stack.sim.cluster.create(job(`start-${i}`, "start", refs(i)));
    });
    await waitFor("every pod to exist", async () => (await stack.sim.cluster.list(POD, { namespace: "start" })).items.length, (count) => count >= START_JOBS * 3, { timeoutMs: 600_000, intervalMs: 500 });
    await relayIdle(relay.metrics, 600_000);
    progress("relay start: restarting the relay");
    relay.child.kill("SIGTERM");
    await new Promise((resolve) => relay.child.once("exit", resolve));
    const started = performance.now();
    relay = await relayProcess(stack, script);
    const readyzAt = performance.now();
    const restarted = relay;
    await waitFor("every job reconciled once", async () => metricSum(await restarted.metrics(), "edgeloop_reconciles_total", { controller: "federatedlearning" }), (count) => count >= START_JOBS, { timeoutMs: 600_000, intervalMs: 50 });
    const readyAt = performance.now();
    await relayIdle(relay.metrics, 600_000);
    const idleAt = performance.now();
    report({ metric: `relay_readyz_seconds_${START_JOBS}_jobs`, value: tenth((readyzAt - started) / 1000), unit: "s" });
    report({ metric: `relay_ready_seconds_${START_JOBS}_jobs`, value: tenth((readyAt - started) / 1000), unit: "s", target: "<= 5" });
    report({ metric: `relay_idle_seconds_${START_JOBS}_jobs`, value: tenth((idleAt - started) / 1000), unit: "s" });
  } finally {
    relay.child.kill("SIGTERM");
    await stack.stop();
  }
}

const bench: Benchmark = {
  name: "sedna",
  async run(report, progress) {
    const script = await relayBundle();
    if (PARTS.has("heal") || PARTS.has("materialise")) await endToEnd(report, progress, script);
    if (PARTS.has("start")) await relayStart(report, progress, script);
  },
};
export default bench;
