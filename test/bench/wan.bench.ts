/**
 * The loop across the link as deployed (issue 35, item 2): one stack (sim, Worker in
 * workerd, a relay process), the relay reaching the Worker through the link shaper
 * (`scripts/lib/link/shaper.ts`), measured in one run at each RTT of
 * EDGELOOP_BENCH_WAN_RTTS (default 0,20,50,100,200 ms; jitter 10 % of it) and each loss of
 * EDGELOOP_BENCH_WAN_LOSS (default 0,1 %), every figure beside RTT 0's of the same run:
 * - `heal`: Sedna self-heal, a training pod deleted one at a time, to its replacement;
 * - `rate`: the same at 100 deletions/s for 3 s, over 100 jobs;
 * - `fl`: 1,000 FederatedLearningJobs created at once, to every job Running (jobs/s);
 * - `resync`: a full resync (SIGHUP) of 10,000 parents of the `mirror` test controller;
 * - `replicas`: NerveX's replicas API, a POST of 8 collectors and 2 learners as
 *   DI-engine's coordinator makes it (plain HTTP), each after the last one's pods exist;
 * - `gang`: the gang scheduler placing 10,000 pods in groups of 8 on
 *   {@link GANG_NODES} nodes of their own (`./gang-scenario.ts`: every group waits one pod
 *   short, then its last pod is created; timed until every pod has a node), pods/s; the
 *   pods are deleted after each setting.
 * EDGELOOP_BENCH_WAN_PARTS picks parts; EDGELOOP_BENCH_WAN_SCALE (default 1) scales the
 * counts down for a quick look. Each figure is a point of a curve: `series` the part and
 * loss, `x` the RTT; the targets are the issue's: lossless, against RTT 0 of the same run;
 * with loss, each p99 within 3 × RTT of the lossless run at the same RTT, nothing unhealed.
 */
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { parseLinkSpec } from "../../scripts/lib/link/spec.ts";
import { WORKER_KEEP_ALIVE_SECONDS } from "../../relay/deliver/worker-client.ts";
import { testStack } from "../e2e/harness.ts";
import { job as flJob } from "./sedna.bench.ts";
import { flJobRefs } from "../support/fl-job.ts";
import { job as nervexJob, NAMESPACE as NERVEX_NS, coordinatorProcess } from "./nervex-workload.ts";
import { emptyNodes, gangScenario, GROUP_SIZE } from "./gang-scenario.ts";
import { selfHealAtRate, selfHealOneAtATime } from "./self-heal.ts";
import { metricSum, percentile, relayBundle, relayIdle, relayProcess, tenth } from "./util.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested status

const POD = { apiVersion: "v1", kind: "Pod" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const CM = { apiVersion: "v1", kind: "ConfigMap" };
const SCALE = Number(process.env.EDGELOOP_BENCH_WAN_SCALE ?? 1);
const RTTS = (process.env.EDGELOOP_BENCH_WAN_RTTS ?? "0,20,50,100,200").split(",").map(Number);
const LOSSES = (process.env.EDGELOOP_BENCH_WAN_LOSS ?? "0,1").split(",").map(Number);
const PARTS = new Set((process.env.EDGELOOP_BENCH_WAN_PARTS ?? "heal,rate,fl,resync,replicas,gang").split(","));
const HEAL_DELETIONS = Math.max(10, Math.round(100 * SCALE));
const RATE = 100;
const RATE_SECONDS = 3;
const FL_JOBS = Math.max(10, Math.round(1_000 * SCALE));
const PARENTS = Math.max(100, Math.round(10_000 * SCALE));
const POSTS = Math.max(5, Math.round(30 * SCALE));
const GANG_GROUPS = Math.max(10, Math.round(1_250 * SCALE));
/** 8-cpu nodes for the gang pods (100m each): room for twice them. */
const GANG_NODES = Math.max(4, Math.ceil((GANG_GROUPS * GROUP_SIZE) / 40));
const GANG_NAMESPACE = "gang";
/** Coordinators the POSTs go round (a POST of the same body to the same coordinator within the retry window is a retry). */
const COORDINATORS = 10;


/** One setting of the link. */
interface Setting {
  readonly rttMs: number;
  readonly lossPct: number;
}

const specOf = (s: Setting): string => (s.rttMs === 0 && s.lossPct === 0 ? "none" : [...(s.rttMs > 0 ? [`rtt=${s.rttMs}ms`, `jitter=${s.rttMs / 10}ms`] : []), ...(s.lossPct > 0 ? [`loss=${s.lossPct}%`] : [])].join(","));

/** FL namespaces made so far, and replicas POSTs sent, in this run: each part's names and bodies its own. */
interface Made {
  fleets: number;
  posts: number;
}

const bench: Benchmark = {
  name: "wan",
  async run(report, progress) {
    // The Worker behind the framing guard, which keeps idle client connections 400 s as Cloudflare's edge does, and the relay keeping its own 60 s, as installed.
    const gangNodes = PARTS.has("gang") ? Array.from({ length: GANG_NODES }, (_, i) => `gang-${i}`) : [];
    const stack = await testStack({ nodes: ["cloud", "edge1", "edge2", ...Array.from({ length: 40 }, (_, i) => `pool-${i}`), ...gangNodes], link: parseLinkSpec("none"), guardFraming: true });
    const link = stack.link;
    if (!link) throw new Error("the stack has no link");
    await stack.relay.stop();
    // What each part measured at each RTT and loss (`part/metric/rtt/loss`), for the targets.
    const baseline = new Map<string, number>();
    const made: Made = { fleets: 0, posts: 0 };
    const relay = await relayProcess({ ...stack, worker: { ...stack.worker, url: link.url } }, await relayBundle(), 120_000, ["--worker-keep-alive-seconds", String(WORKER_KEEP_ALIVE_SECONDS)]);
    const coordinator = coordinatorProcess();
    try {
      await prepare(stack.sim.cluster, progress);
      // The first setting measured once unreported: the first 1,000 jobs ran at half the speed of every later run (V8 warming up in all three processes), which made RTT 0 the slowest.
      const settings = [{ rttMs: 0, lossPct: 0, warmUp: true }, ...LOSSES.flatMap((lossPct) => RTTS.map((rttMs) => ({ rttMs, lossPct, warmUp: false })))];
      for (const { rttMs, lossPct, warmUp } of settings) {
        {
          const setting = { rttMs, lossPct };
          link.apply({ kind: "shape", shape: parseLinkSpec(specOf(setting)) });
          progress(`link ${specOf(setting)}${warmUp ? " (warm-up, not reported)" : ""}`);
          // What the last setting left queued (requeues, status echoes) is done before this one is measured.
          await relayIdle(relay.metrics, 120_000);
          const series = (part: string): { series: string; x: number; xUnit: string } => ({ series: `${part}, loss ${lossPct}%`, x: rttMs, xUnit: "ms RTT" });
          // Lossless: against RTT 0 of the same run. With loss: p99s against the lossless run at the same RTT (+ 3 × RTT), nothing lost or doubled.
          const point = (part: string, metric: string, value: number, unit: string, target?: (base: number) => string): void => {
            if (warmUp) return;
            baseline.set(`${part}/${metric}/${rttMs}/${lossPct}`, value);
            const lossless = baseline.get(`${part}/${metric}/${rttMs}/0`);
            const rtt0 = baseline.get(`${part}/${metric}/0/0`);
            const aim =
              lossPct === 0 ? (target && rttMs > 0 && rtt0 !== undefined ? target(rtt0) : undefined)
              : metric.endsWith("_p99_ms") && lossless !== undefined ? `<= ${tenth(lossless + 3 * Math.max(rttMs, 1))}`
              : metric.endsWith("_unhealed") ? "== 0"
              : undefined;
            if (!warmUp) report({ metric: `${metric}_rtt${rttMs}ms_loss${lossPct}pct`, value, unit, ...series(part), ...(aim ? { target: aim } : {}) });
          };
          if (PARTS.has("heal")) await heal(stack.sim.cluster, setting, point);
          if (PARTS.has("rate")) await atRate(stack.sim.cluster, setting, point);
          if (PARTS.has("fl")) await materialise(stack.sim.cluster, made, point);
          if (PARTS.has("resync")) await resync(relay, setting, point);
          if (PARTS.has("replicas")) await replicas(new URL(stack.apiUrl).host, coordinator, made, setting, point);
          if (PARTS.has("gang")) await gang(stack, relay, progress, point);
          const { counters } = link.state;
          progress(`link ${specOf(setting)}: ${counters.connections} connections so far, ${counters.retransmissions} retransmissions`);
        }
      }
    } finally {
      coordinator.stop();
      relay.child.kill("SIGTERM");
      await stack.stop();
    }
  },
};

type Point = (part: string, metric: string, value: number, unit: string, target?: (base: number) => string) => void;
type Cluster = Awaited<ReturnType<typeof testStack>>["sim"]["cluster"];

async function createAll(cluster: Cluster, objects: readonly Obj[]): Promise<void> {
  for (const object of objects) await cluster.create(object as KubeObject);
}

/** The namespaces, Models and Datasets, the heal jobs, the mirror parents and the NerveX coordinators, once. */
async function prepare(cluster: Cluster, progress: (message: string) => void): Promise<void> {
  for (const ns of ["heal", "rate", NERVEX_NS]) await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } as KubeObject);
  for (const ns of ["heal", "rate"]) await sednaRefs(cluster, ns);
  if (PARTS.has("heal")) for (let i = 0; i < 10; i++) await cluster.create(flJob(`heal-${i}`, "heal"));
  if (PARTS.has("rate")) for (let i = 0; i < 100; i++) await cluster.create(flJob(`rate-${i}`, "rate"));
  if (PARTS.has("resync")) {
    progress(`${PARENTS} mirror parents`);
    for (let i = 0; i < PARENTS; i++) await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `p-${i}`, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { v: "1" } } as KubeObject);
    await waitFor("every mirror child", async () => (await cluster.list(CM, { namespace: "default", labelSelector: "edgeloop.test/mirror-of" })).items.length, (n) => n >= PARENTS, { timeoutMs: 300_000, intervalMs: 100 });
  }
  if (PARTS.has("replicas")) {
    for (let i = 0; i < COORDINATORS; i++) await cluster.create(nervexJob(`wan-${i}`));
    await waitFor("every coordinator Running", async () => ((await cluster.list(POD, { namespace: NERVEX_NS })).items as Obj[]).filter((p) => p.status?.phase === "Running").length, (n) => n >= COORDINATORS, { timeoutMs: 120_000, intervalMs: 100 });
  }
  const training = (ns: string): Promise<number> => cluster.list(POD, { namespace: ns, labelSelector: "federatedlearningjob.sedna.io/worker-type=train" }).then((list) => list.items.length);
  if (PARTS.has("heal")) await waitFor("20 heal training pods", () => training("heal"), (n) => n === 20, { timeoutMs: 60_000, intervalMs: 50 });
  if (PARTS.has("rate")) await waitFor("200 rate training pods", () => training("rate"), (n) => n === 200, { timeoutMs: 120_000, intervalMs: 50 });
}

async function sednaRefs(cluster: Cluster, ns: string): Promise<void> {
  await createAll(cluster, flJobRefs(ns));
}

/** Self-heal one deletion at a time: deletion to the replacement's creation. */
async function heal(cluster: Cluster, setting: Setting, point: Point): Promise<void> {
  const latencies = await selfHealOneAtATime(cluster, "heal", HEAL_DELETIONS, 30_000);
  const rtt = setting.rttMs;
  point("self-heal one at a time", "self_heal_p50_ms", tenth(percentile(latencies, 50)), "ms", (base) => `<= ${tenth(base + rtt)}`);
  point("self-heal one at a time", "self_heal_p99_ms", tenth(percentile(latencies, 99)), "ms", (base) => `<= ${tenth(base + 2 * rtt)}`);
}

/** Self-heal at 100 deletions/s. */
async function atRate(cluster: Cluster, setting: Setting, point: Point): Promise<void> {
  const run = await selfHealAtRate(cluster, "rate", RATE, RATE * RATE_SECONDS);
  const rtt = setting.rttMs;
  point(`self-heal at ${RATE}/s`, `self_heal_${RATE}ps_p50_ms`, tenth(percentile(run.latencies, 50)), "ms", (base) => `<= ${tenth(base + rtt)}`);
  point(`self-heal at ${RATE}/s`, `self_heal_${RATE}ps_p99_ms`, tenth(percentile(run.latencies, 99)), "ms", (base) => `<= ${tenth(base + 2 * rtt)}`);
  point(`self-heal at ${RATE}/s`, `self_heal_${RATE}ps_unhealed`, run.unhealed, "deletions", () => "== 0");
}

/** FL_JOBS jobs created at once, to every one Running; then deleted, and their pods gone. */
async function materialise(cluster: Cluster, made: Made, point: Point): Promise<void> {
  const ns = `fleet-${(made.fleets += 1)}`;
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } as KubeObject);
  await sednaRefs(cluster, ns);
  const started = performance.now();
  await Promise.all(Array.from({ length: FL_JOBS }, (_, i) => cluster.create(flJob(`fl-${i}`, ns))));
  await waitFor("every job Running", async () => ((await cluster.list(FL, { namespace: ns })).items as Obj[]).filter((j) => j.status?.phase === "Running").length, (n) => n === FL_JOBS, { timeoutMs: 600_000, intervalMs: 50 });
  const seconds = (performance.now() - started) / 1000;
  point("FL jobs at once", `fl_${FL_JOBS}_jobs_per_second`, tenth(FL_JOBS / seconds), "1/s", (base) => `>= ${tenth(base * 0.8)}`);
  await cluster.delete({ apiVersion: "v1", kind: "Namespace" }, undefined, ns);
  await waitFor(`${ns} gone`, async () => (await cluster.list(POD, { namespace: ns })).items.length, (n) => n === 0, { timeoutMs: 300_000, intervalMs: 200 });
}

/** A full resync (SIGHUP): reconciles/s of the mirror controller until the queue is idle. */
async function resync(relay: Awaited<ReturnType<typeof relayProcess>>, _setting: Setting, point: Point): Promise<void> {
  const ok = async (): Promise<number> => metricSum(await relay.metrics(), "edgeloop_reconciles_total", { controller: "mirror", result: "ok" });
  const before = await ok();
  const started = performance.now();
  relay.child.kill("SIGHUP");
  await waitFor("every parent reconciled again", ok, (n) => n >= before + PARENTS, { timeoutMs: 900_000, intervalMs: 50 });
  const seconds = (performance.now() - started) / 1000;
  point("resync", `resync_${PARENTS}_reconciles_per_second`, Math.round(PARENTS / seconds), "1/s", (base) => `>= ${Math.round(base * 0.8)}`);
}

/** POSTs of the replicas API, one after another (the reply comes once every pod and Service is created); 40 nodes hold ten settings' pods. */
async function replicas(server: string, coordinator: ReturnType<typeof coordinatorProcess>, made: Made, setting: Setting, point: Point): Promise<void> {
  const latencies: number[] = [];
  for (let i = 0; i < POSTS; i++) {
    const job = `wan-${i % COORDINATORS}`;
    // A body of its own per call: never a retry of an earlier one.
    const memory = `${64 + (made.posts += 1)}Mi`;
    const body = { namespace: NERVEX_NS, coordinator: `${job}-coordinator`, collectors: { replicas: 8, cpus: "10m", memory }, learners: { replicas: 2, cpus: "10m", memory } };
    const reply = await coordinator.call({ server, method: "POST", path: "/v1alpha1/replicas", body });
    if (reply.status !== 200 || !reply.success) throw new Error(`POST for ${job}: ${reply.status} ${reply.body}`);
    latencies.push(reply.ms);
  }
  latencies.sort((a, b) => a - b);
  const rtt = setting.rttMs;
  point("replicas POST", "replicas_post_p50_ms", tenth(percentile(latencies, 50)), "ms");
  point("replicas POST", "replicas_post_p99_ms", tenth(percentile(latencies, 99)), "ms", () => `<= ${50 + rtt}`);
}

/** The gang scheduler places GANG_GROUPS groups of 8 whose last pods come at once (pods/s); then the pods go. */
async function gang(stack: Awaited<ReturnType<typeof testStack>>, relay: Awaited<ReturnType<typeof relayProcess>>, progress: (message: string) => void, point: Point): Promise<void> {
  const run = await gangScenario(stack, relay, progress, GANG_NAMESPACE, GANG_GROUPS);
  point("gang placement", `gang_${GANG_GROUPS * GROUP_SIZE}_pods_per_second`, Math.round((GANG_GROUPS * GROUP_SIZE) / run.seconds), "1/s", (base) => `>= ${Math.round(base * 0.8)}`);
  point("gang placement", "gang_worker_batches", run.batches, "batches");
  await emptyNodes(stack, relay, GANG_NAMESPACE);
}

export default bench;
