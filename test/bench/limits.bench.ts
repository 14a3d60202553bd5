/**
 * Cloudflare's limits, measured instead of assumed (issue 35, item 5). Each scenario runs
 * on a stack of its own (sim, the Worker in workerd, a relay process) whose relay reaches
 * the Worker through a meter (`./limits/meter.ts`) that lets one request at a time
 * through and times workerd's CPU across it. The isolate's V8 heap is capped at half of
 * Cloudflare's 128 MB (`--max-heap-size`), so a scenario that completes proves its heap
 * stayed under half the limit; its peak as read between requests is reported too. For
 * each route: requests, the heaviest request's CPU ms, the largest request and response
 * bodies, the Durable Object calls of the largest request; for each Durable Object its
 * meters (`durable/usage.ts`): peak requests/s (sampled each second), rows read and
 * written, bytes stored. Every figure's target is half of its limit
 * (`./limits/cloudflare.ts`).
 *
 * One request at a time understates how fast requests reach a Durable Object: a scenario's
 * burst (FL's second 1,000 jobs at once, the LocalControllers' reconnect storm) goes
 * through the meter untimed, at its natural pace, for the objects' peak requests/s.
 *
 * Scenarios (EDGELOOP_BENCH_LIMITS_PARTS picks some; EDGELOOP_BENCH_LIMITS_SCALE scales
 * them down for a quick look):
 * - `gang`: 10,000 gang pods in groups of 8 on 1,000 nodes, each group one pod short
 *   (all pending in the queue), then completed and placed (`./gang-scenario.ts`);
 * - `fl`: 1,000 FederatedLearningJobs created at once, to every job Running;
 * - `autonomy`: 5,000 autonomous edge nodes (pools of EDGELOOP_BENCH_LIMITS_POOL, default
 *   100) with 30 pods each, every node reconciled with its pods and its pool;
 * - `lcs`: 1,000 upstream-protocol LocalControllers connected to Sedna's edge channel,
 *   sent one job of 1,000 training workers, then each reporting its Dataset.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../cli/ports.ts";
import { waitFor } from "../../cli/wait.ts";
import type { DurableUsage } from "../../durable/contracts.ts";
import { READINESS_OBJECT_NAME } from "../../durable/names.ts";
import { REPLAY } from "../../durable/table.ts";
import { AUTONOMY_DURATION, EDGE_WORKER, NODE_POOL } from "../../functions/controllers/autonomy/names.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark, Figure } from "../../scripts/bench.ts";
import { workerdChildren } from "../../scripts/lib/workerd-process.ts";
import { testStack } from "../e2e/harness.ts";
import { LocalController } from "../support/local-controller.ts";
import { gangScenario, GROUP_SIZE, emptyNodes } from "./gang-scenario.ts";
import { CLOUDFLARE_LIMITS as LIMIT, halfOf } from "./limits/cloudflare.ts";
import { HeapReader } from "./limits/heap.ts";
import { WorkerMeter, type RouteFigures } from "./limits/meter.ts";
import { meteredObjects, readAll, requestsSoFar, type MeteredObject } from "./limits/objects.ts";
import { job as flJob } from "./sedna.bench.ts";
import { flJobRefs } from "../support/fl-job.ts";
import { inPool, percentile, relayBundle, relayIdle, relayProcess, tenth } from "./util.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested status
type Report = (figure: Omit<Figure, "bench">) => void;
type Stack = Awaited<ReturnType<typeof testStack>>;
type Relay = Awaited<ReturnType<typeof relayProcess>>;

const SCALE = Number(process.env.EDGELOOP_BENCH_LIMITS_SCALE ?? 1);
const PARTS = new Set((process.env.EDGELOOP_BENCH_LIMITS_PARTS ?? "gang,fl,autonomy,lcs").split(","));
const scaled = (n: number, least: number): number => Math.max(least, Math.round(n * SCALE));
const GANG_GROUPS = scaled(1_250, 10);
const GANG_NODES = scaled(1_000, 4);
const FL_JOBS = scaled(1_000, 10);
const AUTONOMY_NODES = scaled(5_000, 10);
const PODS_PER_NODE = 30;
const POOL = Number(process.env.EDGELOOP_BENCH_LIMITS_POOL ?? 100);
const LCS = scaled(1_000, 10);
/** Half of Cloudflare's isolate memory: a scenario that completes under it has the headroom the issue asks for. */
const HEAP_CAP_MB = LIMIT.isolateMb / 2;
const WAIT_MS = 900_000;
const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const DATASET = { apiVersion: "sedna.io/v1alpha1", kind: "Dataset" };
const MODEL = { apiVersion: "sedna.io/v1alpha1", kind: "Model" };

/** What a scenario is given: the stack, the relay process behind the meter, and progress. */
interface Scene {
  readonly stack: Stack;
  readonly relay: Relay;
  readonly relayArgs: readonly string[];
  readonly progress: (message: string) => void;
  /** Runs `work` through the meter untimed, at its natural pace (a burst, for the objects' peak requests/s). */
  readonly natural: (work: () => Promise<void>) => Promise<void>;
}

/** One scenario: its nodes, the namespaces whose ledgers it uses, extra relay arguments, and its work. */
interface Scenario {
  readonly name: string;
  readonly nodes: readonly string[] | number;
  readonly namespaces: readonly string[];
  readonly relayArgs?: () => Promise<readonly string[]>;
  run(scene: Scene): Promise<void>;
}

const bench: Benchmark = {
  name: "limits",
  async run(report, progress) {
    const script = await relayBundle();
    for (const scenario of SCENARIOS.filter((s) => PARTS.has(s.name))) await measure(scenario, script, report, progress);
  },
};

/** Runs one scenario on a stack of its own and reports its figures. */
async function measure(scenario: Scenario, script: string, report: Report, progress: (message: string) => void): Promise<void> {
  const say = (message: string): void => progress(`${scenario.name}: ${message}`);
  const inspectorPort = await freePort();
  say("starting the stack");
  const stack = await testStack({ nodes: scenario.nodes, extraControllerDirs: [], workerHeapLimitMb: HEAP_CAP_MB, workerInspectorPort: inspectorPort });
  await stack.relay.stop();
  const [pid] = workerdChildren();
  if (pid === undefined) throw new Error("no workerd child of this process");
  const objects = await meteredObjects(stack.worker, scenario.namespaces);
  const meter = await WorkerMeter.start(stack.worker.url, pid, () => requestsSoFar(objects));
  const heap = await HeapReader.connect(inspectorPort);
  meter.afterEach(async () => void (await heap.read()));
  const relayArgs = (await scenario.relayArgs?.()) ?? [];
  const relay = await relayProcess({ ...stack, worker: { ...stack.worker, url: meter.url } }, script, 120_000, relayArgs);
  const rates = sampleRates(objects);
  const started = performance.now();
  try {
    const before = await readAll(objects);
    const natural = async (work: () => Promise<void>): Promise<void> => {
      meter.serializing = false;
      try {
        await work();
        await relayIdle(relay.metrics, WAIT_MS);
      } finally {
        meter.serializing = true;
      }
    };
    await scenario.run({ stack, relay, relayArgs, progress: say, natural });
    await relayIdle(relay.metrics, WAIT_MS);
    const seconds = (performance.now() - started) / 1000;
    const after = await readAll(objects);
    say(`done in ${tenth(seconds)} s`);
    reportRoutes(scenario.name, meter.routes(), report, say);
    reportObjects(scenario.name, before, after, rates.stop(), seconds, report);
    report({ metric: `${scenario.name}_heap_peak_mib`, value: tenth(heap.peakBytes / 2 ** 20), unit: "MiB", target: halfOf(LIMIT.isolateMb) });
  } finally {
    rates.stop();
    heap.close();
    relay.child.kill("SIGTERM");
    await meter.close();
    await stack.stop();
  }
}

/** `POST /v1/events/gang` → `events_gang`. */
function slug(route: string): string {
  return route
    .split(" ")[1]!
    .replace(/^\/v1\//, "")
    .replace(/[^A-Za-z0-9]+/g, "_");
}

function reportRoutes(scenario: string, routes: readonly RouteFigures[], report: Report, say: (message: string) => void): void {
  for (const route of routes) {
    const name = `${scenario}_${slug(route.route)}`;
    const sorted = [...route.cpuMs].sort((a, b) => a - b);
    say(`${route.route}: ${route.requests} requests (${route.timed} timed alone), CPU p50 ${tenth(percentile(sorted, 50))} ms, max ${tenth(route.maxCpuMs)} ms (${route.heaviest?.requestBytes ?? 0} B in, ${route.heaviest?.responseBytes ?? 0} B out)`);
    report({ metric: `${name}_requests`, value: route.requests, unit: "requests" });
    if (route.timed > 0) {
      report({ metric: `${name}_cpu_ms_p50`, value: tenth(percentile(sorted, 50)), unit: "ms" });
      report({ metric: `${name}_cpu_ms_max`, value: tenth(route.maxCpuMs), unit: "ms", target: halfOf(LIMIT.cpuMsPerRequest) });
    }
    report({ metric: `${name}_request_bytes_max`, value: route.maxRequestBytes, unit: "B", target: halfOf(LIMIT.requestBodyBytes) });
    report({ metric: `${name}_response_bytes_max`, value: route.maxResponseBytes, unit: "B" });
    if (route.durableCalls !== undefined && route.durableCalls > 0) report({ metric: `${name}_durable_calls`, value: route.durableCalls, unit: "subrequests", target: halfOf(LIMIT.subrequestsPerRequest) });
  }
}

/** The figures of one object, or of a group of alike objects (the replay shards): rates per object, the rest summed. */
interface ObjectFigures {
  requests: number;
  peak: number;
  rowsRead: number;
  rowsWritten: number;
  /** The largest object's. */
  storedBytes: number;
}

/** Where an object's figures go: the replay guard's 16 shards as one (`REPLAY_shards`), each readiness object nowhere (one read per `/readyz`). */
function groupOf(id: string): string | undefined {
  if (id.endsWith(`/${READINESS_OBJECT_NAME}`)) return undefined;
  if (id.startsWith(`${REPLAY.binding}/`)) return `${REPLAY.binding}_shards`;
  return id.replace(/[^A-Za-z0-9]+/g, "_");
}

function reportObjects(scenario: string, before: ReadonlyMap<string, DurableUsage>, after: ReadonlyMap<string, DurableUsage>, peaks: ReadonlyMap<string, number>, seconds: number, report: Report): void {
  const groups = new Map<string, ObjectFigures>();
  for (const [id, now] of after) {
    const group = groupOf(id);
    const was = before.get(id);
    if (group === undefined || now.requests === (was?.requests ?? 0)) continue;
    const figures = groups.get(group) ?? { requests: 0, peak: 0, rowsRead: 0, rowsWritten: 0, storedBytes: 0 };
    figures.requests += now.requests - (was?.requests ?? 0);
    figures.peak = Math.max(figures.peak, peaks.get(id) ?? 0);
    figures.rowsRead += now.rowsRead - (was?.rowsRead ?? 0);
    figures.rowsWritten += now.rowsWritten - (was?.rowsWritten ?? 0);
    figures.storedBytes = Math.max(figures.storedBytes, now.storedBytes);
    groups.set(group, figures);
  }
  for (const [group, figures] of groups) {
    const name = `${scenario}_${group}`;
    report({ metric: `${name}_requests_per_second_mean`, value: tenth(figures.requests / seconds), unit: "1/s" });
    report({ metric: `${name}_requests_per_second_peak`, value: figures.peak, unit: "1/s", target: halfOf(LIMIT.durableRequestsPerSecond) });
    report({ metric: `${name}_rows_read`, value: figures.rowsRead, unit: "rows" });
    report({ metric: `${name}_rows_written`, value: figures.rowsWritten, unit: "rows" });
    report({ metric: `${name}_stored_bytes`, value: figures.storedBytes, unit: "B", target: halfOf(LIMIT.durableStoredBytes) });
  }
}

/** Reads every object's request count each second; `stop` ends it and answers each object's largest count in one second. */
function sampleRates(objects: readonly MeteredObject[]): { stop(): ReadonlyMap<string, number> } {
  const peaks = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    let last = await readAll(objects);
    while (running) {
      await sleep(1_000);
      const now = await readAll(objects);
      for (const [id, usage] of now) peaks.set(id, Math.max(peaks.get(id) ?? 0, usage.requests - (last.get(id)?.requests ?? 0)));
      last = now;
    }
  })();
  return {
    stop() {
      running = false;
      void loop.catch(() => undefined);
      return peaks;
    },
  };
}

const gang: Scenario = {
  name: "gang",
  nodes: GANG_NODES,
  namespaces: ["gang"],
  async run({ stack, relay, progress }) {
    const run = await gangScenario(stack, relay, progress, "gang", GANG_GROUPS);
    progress(`${GANG_GROUPS * GROUP_SIZE} pods placed in ${tenth(run.seconds)} s (one request at a time to the Worker)`);
    await emptyNodes(stack, relay, "gang");
  },
};

/** FL_JOBS jobs created at once in a namespace of their own, to every one Running. */
async function flAtOnce(stack: Stack, ns: string): Promise<void> {
  const cluster = stack.sim.cluster;
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } as KubeObject);
  for (const ref of flJobRefs(ns)) await cluster.create(ref);
  await Promise.all(Array.from({ length: FL_JOBS }, (_, i) => cluster.create(flJob(`fl-${i}`, ns))));
  await waitFor("every job Running", async () => ((await cluster.list(FL, { namespace: ns })).items as Obj[]).filter((j) => j.status?.phase === "Running").length, (n) => n === FL_JOBS, { timeoutMs: WAIT_MS, intervalMs: 200 });
}

const fl: Scenario = {
  name: "fl",
  nodes: ["cloud", "edge1", "edge2", ...Array.from({ length: 40 }, (_, i) => `pool-${i}`)],
  namespaces: ["fleet", "burst"],
  async run({ stack, progress, natural }) {
    progress(`${FL_JOBS} FL jobs at once, one Worker request at a time`);
    await flAtOnce(stack, "fleet");
    progress(`${FL_JOBS} more at once, at their natural pace`);
    await natural(() => flAtOnce(stack, "burst"));
  },
};

const autonomyNode = (i: number): string => `edge-${i}`;

const autonomy: Scenario = {
  name: "autonomy",
  nodes: Array.from({ length: AUTONOMY_NODES }, (_, i) => autonomyNode(i)),
  namespaces: ["fleet"],
  async run({ stack, relay, progress }) {
    const cluster = stack.sim.cluster;
    progress(`${AUTONOMY_NODES} nodes made autonomous edge nodes, in pools of ${POOL}`);
    const nodes = Array.from({ length: AUTONOMY_NODES }, (_, i) => i);
    await inPool(nodes, 32, (i) => cluster.patch(NODE, undefined, autonomyNode(i), { metadata: { labels: { [EDGE_WORKER]: "true", [NODE_POOL]: `pool-${Math.floor(i / POOL)}` }, annotations: { [AUTONOMY_DURATION]: "10m" } } }, "merge"));
    await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "fleet" } } as KubeObject);
    progress(`${AUTONOMY_NODES * PODS_PER_NODE} pods, ${PODS_PER_NODE} bound to each node`);
    const pods = nodes.flatMap((i) => Array.from({ length: PODS_PER_NODE }, (_, k) => ({ node: autonomyNode(i), name: `p-${i}-${k}` })));
    let made = 0;
    await inPool(pods, 64, async ({ node, name }) => {
      await cluster.create({ ...POD, metadata: { name, namespace: "fleet" }, spec: { nodeName: node, terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox" }] } } as KubeObject);
      if ((made += 1) % 10_000 === 0) progress(`${made} pods`);
    });
    await relayIdle(relay.metrics, WAIT_MS);
    progress("every node's autonomy duration changed (10m → 20m): each node reconciled with its pods and pool");
    await inPool(nodes, 32, (i) => cluster.patch(NODE, undefined, autonomyNode(i), { metadata: { annotations: { [AUTONOMY_DURATION]: "20m" } } }, "merge"));
    const tolerated = async (): Promise<number> => ((await cluster.list(POD, { namespace: "fleet" })).items as Obj[]).filter((p) => (p.spec?.tolerations as Obj[] | undefined)?.some((t) => t.tolerationSeconds === 1200)).length;
    await waitFor("every pod's tolerations at 20m", tolerated, (n) => n === pods.length, { timeoutMs: WAIT_MS, intervalMs: 2_000 });
  },
};

const lcNode = (i: number): string => `sim-node-${i + 1}`;
const GM_PORT_FLAG = "--sedna-gm-port";

const lcs: Scenario = {
  name: "lcs",
  nodes: LCS,
  namespaces: ["default"],
  async relayArgs() {
    return [GM_PORT_FLAG, String(await freePort())];
  },
  async run({ stack, relayArgs, progress, natural }) {
    const cluster = stack.sim.cluster;
    const lcPort = relayArgs[relayArgs.indexOf(GM_PORT_FLAG) + 1];
    await cluster.create({ ...MODEL, metadata: { name: "model", namespace: "default" }, spec: { url: "/m", format: "pb" } } as KubeObject);
    for (let i = 0; i < LCS; i++) await cluster.create({ ...DATASET, metadata: { name: `data-${i + 1}`, namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: lcNode(i) } } as KubeObject);
    const controllers = Array.from({ length: LCS }, (_, i) => new LocalController({ gmAddress: `127.0.0.1:${lcPort}`, nodeName: lcNode(i), retryIntervalMs: 500, parseInserts: false }));
    try {
      for (const lc of controllers) lc.start();
      await waitFor(`${LCS} LCs connected`, () => controllers.filter((lc) => lc.connected).length, (n) => n === LCS, { timeoutMs: 120_000, intervalMs: 100 });
      progress(`one job of ${LCS} training workers, sent to every LC`);
      const container = (image: string): Obj => ({ name: "worker", image });
      await cluster.create({
        ...FL,
        metadata: { name: "fanout", namespace: "default" },
        spec: {
          aggregationWorker: { model: { name: "model" }, template: { spec: { nodeName: lcNode(0), terminationGracePeriodSeconds: 0, containers: [container("agg:v1")] } } },
          trainingWorkers: Array.from({ length: LCS }, (_, i) => ({ dataset: { name: `data-${i + 1}` }, template: { spec: { nodeName: lcNode(i), terminationGracePeriodSeconds: 0, containers: [container("train:v1")] } } })),
        },
      } as KubeObject);
      await waitFor("the job on every LC", () => controllers.filter((lc) => lc.held("federatedlearningjob").size > 0).length, (n) => n === LCS, { timeoutMs: WAIT_MS, intervalMs: 200 });
      progress("every LC reports its Dataset");
      controllers.forEach((lc, i) => lc.reportDatasetSamples("default", `data-${i + 1}`, 1));
      const reported = (samples: number) => async (): Promise<number> => ((await cluster.list(DATASET, { namespace: "default" })).items as Obj[]).filter((d) => d.status?.numberOfSamples === samples).length;
      await waitFor("every Dataset's status", reported(1), (n) => n === LCS, { timeoutMs: WAIT_MS, intervalMs: 200 });
      progress("every LC's socket dropped at once, then every LC reports again, at their natural pace");
      await natural(async () => {
        const connects = controllers.map((lc) => lc.counters.connects);
        for (const lc of controllers) lc.drop();
        await waitFor("every LC connected again", () => controllers.filter((lc, i) => lc.connected && lc.counters.connects > (connects[i] ?? 0)).length, (n) => n === LCS, { timeoutMs: WAIT_MS, intervalMs: 100 });
        controllers.forEach((lc, i) => lc.reportDatasetSamples("default", `data-${i + 1}`, 2));
        await waitFor("every Dataset's second status", reported(2), (n) => n === LCS, { timeoutMs: WAIT_MS, intervalMs: 200 });
      });
    } finally {
      await Promise.all(controllers.map((lc) => lc.stop()));
    }
  },
};

const SCENARIOS: readonly Scenario[] = [gang, fl, autonomy, lcs];

export default bench;
