/**
 * A Worker outage at scale (issue 35, item 4): 10,000 Sedna FederatedLearningJobs (30,000
 * pods) on one stack whose relay process reaches the Worker through the link shaper; the
 * link goes `down` for each of EDGELOOP_BENCH_OUTAGE_SECONDS (default 60,600) while pods
 * are deleted at 50/s (every pod of the cluster is a slot: at most one deletion each),
 * then comes back. Figures per outage: seconds from the link's return until every slot
 * has one live pod again (target <= 30), slots lost (never healed within 120 s) and
 * duplicated (two live pods in one slot), `Recreated` Events beyond one per deletion, and
 * the relay's peak RSS and queue depth while the Worker was away (they must stay bounded).
 * EDGELOOP_BENCH_OUTAGE_JOBS changes the number of jobs; EDGELOOP_BENCH_OUTAGE_RELAY_ARGS
 * passes flags to the relay (e.g. `--worker-in-flight 32`, for a run beside the default).
 */
import { readFileSync } from "node:fs";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { NO_SHAPE } from "../../scripts/lib/link/spec.ts";
import { testStack } from "../e2e/harness.ts";
import { job } from "./sedna.bench.ts";
import { metricSum, relayBundle, relayIdle, relayProcess, tenth } from "./util.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested objects

const POD = { apiVersion: "v1", kind: "Pod" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const NS = "fleet";
const JOBS = Number(process.env.EDGELOOP_BENCH_OUTAGE_JOBS ?? 10_000);
const OUTAGES = (process.env.EDGELOOP_BENCH_OUTAGE_SECONDS ?? "60,600").split(",").map(Number);
const RATE = 50;

/** A pod's slot: its job and role (`job/worker` for trainers, `job/aggregator`). */
function slotOf(pod: Obj): string {
  const labels = (pod.metadata.labels ?? {}) as Record<string, string>;
  return `${labels["federatedlearningjob.sedna.io/name"] ?? ""}/${labels["edgeloop.dev/worker"] ?? labels["federatedlearningjob.sedna.io/worker-type"] ?? ""}`;
}

function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}

const bench: Benchmark = {
  name: "outage",
  async run(report, progress) {
    const stack = await testStack({ nodes: ["cloud", "edge1", "edge2"], link: NO_SHAPE });
    const link = stack.link;
    if (!link) throw new Error("the stack has no link");
    await stack.relay.stop();
    const relayArgs = (process.env.EDGELOOP_BENCH_OUTAGE_RELAY_ARGS ?? "").split(" ").filter(Boolean);
    const relay = await relayProcess({ ...stack, worker: { ...stack.worker, url: link.url } }, await relayBundle(), 120_000, relayArgs);
    const cluster = stack.sim.cluster;
    const live = async (): Promise<Obj[]> => ((await cluster.list(POD, { namespace: NS })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
    const recreated = async (): Promise<number> => ((await cluster.list(EVENT, { namespace: NS })).items as Obj[]).filter((e) => e.reason === "Recreated").reduce((sum, e) => sum + Number(e.count ?? 1), 0);
    try {
      progress(`${JOBS} jobs (${JOBS * 3} pods)`);
      await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } as KubeObject);
      await cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: NS }, spec: { url: "/m", format: "pb" } } as KubeObject);
      for (const node of ["edge1", "edge2"]) await cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: NS }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
      for (let i = 0; i < JOBS; i++) await cluster.create(job(`job-${i}`, NS));
      await waitFor("every pod", async () => (await live()).length, (n) => n === JOBS * 3, { timeoutMs: 900_000, intervalMs: 1_000 });
      await relayIdle(relay.metrics, 600_000);
      report({ metric: `relay_rss_synced_idle_${JOBS}_jobs_mib`, value: Math.round(rssMiB(relay.child.pid)), unit: "MiB" });
      for (const seconds of OUTAGES) {
        const slots = new Set((await live()).map(slotOf));
        const recreatedBefore = await recreated();
        progress(`link down for ${seconds} s, ${RATE} deletions/s`);
        link.apply({ kind: "down" });
        let peakRss = rssMiB(relay.child.pid);
        let peakDepth = 0;
        const started = performance.now();
        let deleted = 0;
        const victims = (await live()).sort(() => 0.5 - Math.random());
        while (performance.now() - started < seconds * 1000) {
          const due = Math.floor(((performance.now() - started) / 1000) * RATE);
          while (deleted < Math.min(due, victims.length)) {
            const victim = victims[deleted++] as Obj;
            await cluster.delete(POD, NS, String(victim.metadata.name), { gracePeriodSeconds: 0 }).catch(() => undefined);
          }
          peakRss = Math.max(peakRss, rssMiB(relay.child.pid));
          peakDepth = Math.max(peakDepth, metricSum(await relay.metrics(), "edgeloop_queue_depth"));
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const returned = performance.now();
        link.apply({ kind: "up" });
        const healed = await waitFor("every slot healed", async () => new Set((await live()).map(slotOf)).size, (n) => n === slots.size, { timeoutMs: 120_000, intervalMs: 500 }).then(
          () => (performance.now() - returned) / 1000,
          () => undefined,
        );
        const after = await live();
        const perSlot = new Map<string, number>();
        for (const pod of after) perSlot.set(slotOf(pod), (perSlot.get(slotOf(pod)) ?? 0) + 1);
        const lost = [...slots].filter((slot) => !perSlot.has(slot)).length;
        const duplicated = [...perSlot.values()].filter((n) => n > 1).length;
        await relayIdle(relay.metrics, 300_000);
        const extraRecreated = (await recreated()) - recreatedBefore - deleted;
        const tag = `${seconds}s_down_${JOBS}_jobs`;
        progress(`${seconds} s down: ${deleted} deleted; healed ${healed === undefined ? "not within 120 s" : `${tenth(healed)} s`} after the return; ${lost} lost, ${duplicated} duplicated, ${extraRecreated} Recreated beyond one per deletion; relay peak ${Math.round(peakRss)} MiB, queue depth peak ${peakDepth}`);
        report({ metric: `heal_after_${tag}_s`, value: tenth(healed ?? 120), unit: "s", target: "<= 30" });
        report({ metric: `deleted_while_${tag}`, value: deleted, unit: "pods" });
        report({ metric: `lost_${tag}`, value: lost, unit: "slots", target: "== 0" });
        report({ metric: `duplicated_${tag}`, value: duplicated, unit: "slots", target: "== 0" });
        report({ metric: `recreated_beyond_deletions_${tag}`, value: extraRecreated, unit: "Events", target: "== 0" });
        report({ metric: `relay_peak_rss_${tag}_mib`, value: Math.round(peakRss), unit: "MiB" });
        report({ metric: `queue_depth_peak_${tag}`, value: peakDepth, unit: "keys", target: `<= ${JOBS}` });
      }
    } finally {
      relay.child.kill("SIGTERM");
      await stack.stop();
    }
  },
};

export default bench;
