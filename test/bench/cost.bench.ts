/**
 * The bill (issue 35, item 6): a month of edgeloop on Cloudflare for three fleets, from
 * what a stack measures while it does that fleet's work, priced by `./cost/bill.ts` at the
 * dated prices of `docs/cloudflare-pricing.md`.
 *
 * A fleet is N edge nodes (autonomous, in pools of 100) carrying P pods, and C changes a
 * second. A change is a Sedna training pod deleted and healed (what Sedna's GM does too,
 * so its CPU per change stands beside the relay's): the deletion, the replacement's
 * create, scheduling and start, every controller that watches pods seeing each step. Each
 * fleet runs on a stack of its own (sim, the Worker in workerd, a relay process whose
 * Worker calls pass through a counting front, `./limits/meter.ts`), settled, then:
 * - steady: C changes a second for EDGELOOP_BENCH_COST_SECONDS (default 60): Worker
 *   requests, workerd's CPU, each Durable Object's requests, active time (long polls
 *   included), rows read and written (`durable/usage.ts`);
 * - resync: one full resync (SIGHUP) measured alike, made monthly at the relay's default
 *   period (600 s), since the steady window holds none.
 * Per second of steady work plus a resync's share, times a month, priced: one figure per
 * line of the bill and its total, and the relay's own CPU and memory in the cluster beside
 * it. Worker CPU is workerd's whole process (the Durable Objects' work included, which
 * Cloudflare bills as their duration instead): an upper bound.
 *
 * EDGELOOP_BENCH_COST_FLEETS picks fleets by index (default 0,1,2: 100 nodes / 2,000 pods /
 * 1 change/s; 1,000 / 20,000 / 10; 5,000 / 150,000 / 50).
 */
import { waitFor } from "../../cli/wait.ts";
import type { DurableUsage } from "../../durable/contracts.ts";
import { AUTONOMY_DURATION, EDGE_WORKER, NODE_POOL } from "../../functions/controllers/autonomy/names.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark, Figure } from "../../scripts/bench.ts";
import { rssMiB } from "../../scripts/lib/soak/proc.ts";
import { workerdChildren } from "../../scripts/lib/workerd-process.ts";
import { testStack } from "../e2e/harness.ts";
import { monthlyBill, MONTH_SECONDS, type UsagePerSecond } from "./cost/bill.ts";
import { PRICES_AS_OF } from "./cost/prices.ts";
import { processCpuNs, WorkerMeter } from "./limits/meter.ts";
import { meteredObjects, readAll, type MeteredObject } from "./limits/objects.ts";
import { selfHealAtRate } from "./self-heal.ts";
import { job as flJob } from "./sedna.bench.ts";
import { flJobRefs } from "../support/fl-job.ts";
import { inPool, metricSum, relayBundle, relayIdle, relayProcess, tenth } from "./util.ts";

type Report = (figure: Omit<Figure, "bench">) => void;
type Stack = Awaited<ReturnType<typeof testStack>>;
type Relay = Awaited<ReturnType<typeof relayProcess>>;

/** A fleet: nodes, pods and changes a second. */
interface Fleet {
  readonly nodes: number;
  readonly pods: number;
  readonly changesPerSecond: number;
}

const FLEETS: readonly Fleet[] = [
  { nodes: 100, pods: 2_000, changesPerSecond: 1 },
  { nodes: 1_000, pods: 20_000, changesPerSecond: 10 },
  { nodes: 5_000, pods: 150_000, changesPerSecond: 50 },
];
const PICKED = (process.env.EDGELOOP_BENCH_COST_FLEETS ?? "0,1,2").split(",").map(Number);
const SECONDS = Number(process.env.EDGELOOP_BENCH_COST_SECONDS ?? 60);
/** The relay's default resync period (`--resync-seconds`). */
const RESYNC_SECONDS = 600;
const POOL = 100;
const WAIT_MS = 900_000;
const NS = "fleet";
const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const SEDNA_NODES = ["cloud", "edge1", "edge2"];

const bench: Benchmark = {
  name: "cost",
  async run(report, progress) {
    const script = await relayBundle();
    progress(`prices of ${PRICES_AS_OF} (docs/cloudflare-pricing.md)`);
    for (const index of PICKED) {
      const fleet = FLEETS[index];
      if (!fleet) throw new Error(`EDGELOOP_BENCH_COST_FLEETS: no fleet ${index} (0 to ${FLEETS.length - 1})`);
      await measureFleet(fleet, script, report, (message) => progress(`${label(fleet)}: ${message}`));
    }
  },
};

const label = (fleet: Fleet): string => `${fleet.nodes} nodes, ${fleet.pods} pods, ${fleet.changesPerSecond}/s`;
const edgeNode = (i: number): string => `edge-${i}`;

/** What a stretch of work used: Worker requests, workerd CPU, every object's meters, the relay's CPU. */
interface Used {
  readonly seconds: number;
  readonly workerRequests: number;
  readonly workerCpuMs: number;
  readonly durable: DurableTotals;
  /** Each object's share (`BINDING/name`), the same fields. */
  readonly objects: ReadonlyMap<string, DurableTotals>;
  readonly relayCpuMs: number;
}

/** Measures `work` as a stretch of use. */
async function measured(meter: WorkerMeter, workerd: number, relayPid: number, objects: readonly MeteredObject[], work: () => Promise<void>): Promise<Used> {
  const before = { requests: meter.requests, cpu: processCpuNs(workerd), relay: processCpuNs(relayPid), objects: await readAll(objects), at: performance.now() };
  await work();
  const after = { requests: meter.requests, cpu: processCpuNs(workerd), relay: processCpuNs(relayPid), objects: await readAll(objects), at: performance.now() };
  return {
    seconds: (after.at - before.at) / 1000,
    workerRequests: after.requests - before.requests,
    workerCpuMs: (after.cpu - before.cpu) / 1e6,
    durable: sumDelta(before.objects, after.objects),
    objects: new Map([...after.objects].map(([id, now]) => [id, sumDelta(new Map([[id, before.objects.get(id) ?? zero]]), new Map([[id, now]]))])),
    relayCpuMs: (after.relay - before.relay) / 1e6,
  };
}

interface DurableTotals {
  readonly requests: number;
  readonly activeMs: number;
  readonly rowsRead: number;
  readonly rowsWritten: number;
  readonly storedBytes: number;
}

const zero: DurableUsage = { requests: 0, activeMs: 0, rowsRead: 0, rowsWritten: 0, storedBytes: 0 };

function sumDelta(before: ReadonlyMap<string, DurableUsage>, after: ReadonlyMap<string, DurableUsage>): DurableTotals {
  const total = { requests: 0, activeMs: 0, rowsRead: 0, rowsWritten: 0, storedBytes: 0 };
  for (const [id, now] of after) {
    const was = before.get(id);
    total.requests += now.requests - (was?.requests ?? 0);
    total.activeMs += now.activeMs - (was?.activeMs ?? 0);
    total.rowsRead += now.rowsRead - (was?.rowsRead ?? 0);
    total.rowsWritten += now.rowsWritten - (was?.rowsWritten ?? 0);
    total.storedBytes += now.storedBytes;
  }
  return total;
}

async function measureFleet(fleet: Fleet, script: string, report: Report, say: (message: string) => void): Promise<void> {
  say("starting the stack");
  const stack = await testStack({ nodes: [...SEDNA_NODES, ...Array.from({ length: fleet.nodes - SEDNA_NODES.length }, (_, i) => edgeNode(i))], extraControllerDirs: [] });
  await stack.relay.stop();
  const [workerd] = workerdChildren();
  if (workerd === undefined) throw new Error("no workerd child of this process");
  const objects = await meteredObjects(stack.worker, [NS]);
  const meter = await WorkerMeter.start(stack.worker.url, workerd, undefined, false);
  // No periodic resync in the steady window: one is measured on its own and priced at the default period.
  const relay = await relayProcess({ ...stack, worker: { ...stack.worker, url: meter.url } }, script, 120_000, ["--resync-seconds", "0"]);
  const relayPid = relay.child.pid ?? 0;
  try {
    const jobs = await populate(stack, relay, fleet, say);
    say(`steady: ${fleet.changesPerSecond} changes/s for ${SECONDS} s`);
    let unhealed = 0;
    const steady = await measured(meter, workerd, relayPid, objects, async () => {
      const run = await selfHealAtRate(stack.sim.cluster, NS, fleet.changesPerSecond, fleet.changesPerSecond * SECONDS);
      unhealed = run.unhealed;
      await relayIdle(relay.metrics, WAIT_MS);
    });
    if (unhealed > 0) say(`${unhealed} deletions not healed within 60 s`);
    const rss = rssMiB(relayPid) ?? 0;
    say("one full resync");
    const resync = await measured(meter, workerd, relayPid, objects, async () => {
      const before = metricSum(await relay.metrics(), "edgeloop_reconciles_total");
      relay.child.kill("SIGHUP");
      await waitFor("the resync's first reconcile", async () => metricSum(await relay.metrics(), "edgeloop_reconciles_total"), (n) => n > before, { timeoutMs: 60_000, intervalMs: 100 });
      await relayIdle(relay.metrics, WAIT_MS);
    });
    reportFleet(fleet, jobs, steady, resync, rss, report, say);
  } finally {
    relay.child.kill("SIGTERM");
    await meter.close();
    await stack.stop();
  }
}

/** The fleet's nodes made autonomous, its pods bound across them, and the Sedna jobs whose pods change; answers the jobs made. */
async function populate(stack: Stack, relay: Relay, fleet: Fleet, say: (message: string) => void): Promise<number> {
  const cluster = stack.sim.cluster;
  const edge = Array.from({ length: fleet.nodes - SEDNA_NODES.length }, (_, i) => i);
  say(`${edge.length} autonomous edge nodes in pools of ${POOL}`);
  await inPool(edge, 32, (i) => cluster.patch(NODE, undefined, edgeNode(i), { metadata: { labels: { [EDGE_WORKER]: "true", [NODE_POOL]: `pool-${Math.floor(i / POOL)}` }, annotations: { [AUTONOMY_DURATION]: "10m" } } }, "merge"));
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } as KubeObject);
  for (const ref of flJobRefs(NS)) await cluster.create(ref);
  // Enough training slots that a deletion always finds one not healing (two per job).
  const jobs = Math.max(10, fleet.changesPerSecond * 4);
  say(`${jobs} Sedna FL jobs`);
  await inPool(Array.from({ length: jobs }, (_, i) => i), 16, (i) => cluster.create(flJob(`fl-${i}`, NS)));
  const filler = Math.max(0, fleet.pods - jobs * 3);
  say(`${filler} more pods bound across the edge nodes`);
  let made = 0;
  await inPool(Array.from({ length: filler }, (_, i) => i), 64, async (i) => {
    await cluster.create({ ...POD, metadata: { name: `p-${i}`, namespace: NS, labels: { app: "fleet" } }, spec: { nodeName: edgeNode(i % edge.length), terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox" }] } } as KubeObject);
    if ((made += 1) % 20_000 === 0) say(`${made} pods`);
  });
  const training = async (): Promise<number> => (await cluster.list(POD, { namespace: NS, labelSelector: "federatedlearningjob.sedna.io/worker-type=train" })).items.length;
  await waitFor(`${jobs * 2} training pods`, training, (n) => n === jobs * 2, { timeoutMs: WAIT_MS, intervalMs: 500 });
  await relayIdle(relay.metrics, WAIT_MS);
  return jobs;
}

function reportFleet(fleet: Fleet, jobs: number, steady: Used, resync: Used, relayRss: number, report: Report, say: (message: string) => void): void {
  // Per second: the steady window's rate, plus a resync's use every RESYNC_SECONDS.
  const perSecond = (pick: (used: Used) => number): number => pick(steady) / steady.seconds + pick(resync) / RESYNC_SECONDS;
  const usage: UsagePerSecond = {
    workerRequests: perSecond((u) => u.workerRequests),
    workerCpuMs: perSecond((u) => u.workerCpuMs),
    durableRequests: perSecond((u) => u.durable.requests),
    durableActiveSeconds: perSecond((u) => u.durable.activeMs / 1000),
    rowsRead: perSecond((u) => u.durable.rowsRead),
    rowsWritten: perSecond((u) => u.durable.rowsWritten),
  };
  const bill = monthlyBill(usage, resync.durable.storedBytes);
  const name = `fleet_${fleet.nodes}n_${fleet.pods}p_${fleet.changesPerSecond}cps`;
  const series = { series: "Cloudflare, USD/month", x: fleet.nodes, xUnit: "nodes" };
  say(`${jobs} jobs; steady ${tenth(steady.seconds)} s: ${steady.workerRequests} Worker requests, ${Math.round(steady.workerCpuMs)} ms workerd CPU, ${steady.durable.requests} object requests; resync: ${resync.workerRequests} requests, ${Math.round(resync.workerCpuMs)} ms`);
  const busiest = [...steady.objects].filter(([, o]) => o.requests > 0).sort((a, b) => b[1].rowsWritten - a[1].rowsWritten).slice(0, 6);
  for (const [id, o] of busiest) say(`steady, ${id}: ${o.requests} requests, ${Math.round(o.activeMs)} ms active, ${o.rowsRead} rows read, ${o.rowsWritten} written`);
  for (const line of bill.lines) {
    say(`${line.unit}: ${Math.round(line.quantity).toLocaleString("en")} a month, $${line.usd.toFixed(2)}`);
    report({ metric: `${name}_${line.unit}_per_month`, value: Math.round(line.quantity), unit: line.unit });
    report({ metric: `${name}_${line.unit}_usd`, value: Math.round(line.usd * 100) / 100, unit: "USD" });
  }
  report({ metric: `${name}_total_usd_per_month`, value: Math.round(bill.totalUsd * 100) / 100, unit: "USD", ...series });
  report({ metric: `${name}_usd_per_million_changes`, value: Math.round(((bill.totalUsd * 1e6) / (fleet.changesPerSecond * MONTH_SECONDS)) * 100) / 100, unit: "USD" });
  // The cluster's side of the same work: the relay's CPU per change and its memory.
  report({ metric: `${name}_relay_cpu_ms_per_change`, value: tenth(steady.relayCpuMs / (fleet.changesPerSecond * SECONDS)), unit: "ms" });
  report({ metric: `${name}_relay_cpu_cores`, value: Math.round((perSecond((u) => u.relayCpuMs) / 1000) * 1000) / 1000, unit: "cores" });
  report({ metric: `${name}_relay_rss_mib`, value: tenth(relayRss), unit: "MiB" });
  report({ metric: `${name}_workerd_cpu_ms_per_change`, value: tenth(steady.workerCpuMs / (fleet.changesPerSecond * SECONDS)), unit: "ms" });
}

export default bench;
