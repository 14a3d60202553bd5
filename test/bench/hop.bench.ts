/**
 * The overhead of the serverless hop, side by side in one run (issue 16 item 7, ADR 0015):
 * the same relay process, on the same sim and workload, calling the Worker in workerd over
 * HTTP, then with the Worker's app running inside it (the in-process baseline, Durable
 * Objects in memory).
 * Figures per mode: Sedna self-heal latency (a training pod deleted, one at a time, until
 * its replacement exists) p50/p99, and reconciles per second through a resync (SIGHUP) of
 * 10,000 `mirror` parents; then their ratios, and workerd's CPU time per reconcile during
 * the Worker mode's resync (`/proc/PID/stat` utime + stime of the workerd process).
 * First, to tell the hop from the Durable Object writes in those figures, the latency of
 * one signed reconcile call, alone, in both modes and in process with durable Durable
 * Object storage (`in_process_disk`; calls alternated), without and with a ledger claim (a
 * claim is two Durable Object writes: the replay guard's and the ledger's).
 * EDGELOOP_BENCH_HOP_PARENTS and _DELETIONS scale it down; EDGELOOP_BENCH_LOG_LEVEL=debug
 * logs the relays' requests, kept with EDGELOOP_BENCH_HOP_KEEP_LOGS=1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { RELAY_ENVIRONMENT, RELAY_NODE_FLAGS } from "../../relay/ops/config.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { relayBuildOptions } from "../../scripts/lib/bundle.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { FIXTURE_CONTROLLERS, testStack } from "../e2e/harness.ts";
import { WorkerClient, type WorkerTransport } from "../../relay/deliver/worker-client.ts";
import { bundleWorkerForNode } from "./in-process/bundle.ts";
import { startInProcessWorker } from "./in-process/worker.ts";
import { childPid, cpuSample, inPool, metricSum, onCreated, percentile, relayIdle, stopChild, tenth } from "./util.ts";
import { freePort } from "../../cli/ports.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const CM = { apiVersion: "v1", kind: "ConfigMap" };
const DELETIONS = Number(process.env.EDGELOOP_BENCH_HOP_DELETIONS ?? 200);
const PARENTS = Number(process.env.EDGELOOP_BENCH_HOP_PARENTS ?? 10_000);
/** Signed reconcile calls timed per mode and kind (alone, one at a time). */
const CALLS = 300;
/** FederatedLearningJobs whose training pods are deleted (two each). */
const HEAL_JOBS = 10;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested labels

/**
 * The ways the reconcile functions are reached: the Worker in workerd over HTTP; in
 * process with the Durable Objects in memory (the baseline the targets compare with); in
 * process with their state in files synced at each commit, as workerd's is. The last is
 * timed call by call only, to tell the cost of the hop from the cost of durable writes: a
 * relay running it would wait for each commit's sync with its whole event loop (node:sqlite
 * is synchronous), which workerd, a process of its own, does not make the relay do.
 */
const MODES = ["worker", "in_process", "in_process_disk"] as const;
type Mode = (typeof MODES)[number];
/** The modes a relay runs in, the whole workload. */
const RELAY_MODES = ["worker", "in_process"] as const;
type RelayMode = (typeof RELAY_MODES)[number];

/** What one mode measured. */
interface ModeFigures {
  readonly healP50: number;
  readonly healP99: number;
  readonly reconcilesPerSecond: number;
  /** CPU of the relay process per reconcile during the resync (ms): in process, the reconcile functions' too. */
  readonly relayCpuPerReconcile: number | undefined;
  /** CPU of workerd per reconcile during the resync (ms; the Worker mode only). */
  readonly workerdCpuPerReconcile: number | undefined;
}

function job(name: string): KubeObject {
  const container = (image: string): Obj => ({ name: "worker", image, env: [{ name: "exit_round", value: "3" }] });
  return {
    apiVersion: "sedna.io/v1alpha1",
    kind: "FederatedLearningJob",
    metadata: { name, namespace: "default" },
    spec: {
      aggregationWorker: { model: { name: "model" }, template: { spec: { nodeName: "cloud", terminationGracePeriodSeconds: 0, containers: [container("agg:v1")] } } },
      trainingWorkers: ["edge1", "edge2"].map((node) => ({ dataset: { name: `${node}-data` }, template: { spec: { nodeName: node, terminationGracePeriodSeconds: 0, containers: [container("train:v1")] } } })),
    },
  } as KubeObject;
}

/** Rounds to 0.01 (a call in process takes a fraction of a millisecond). */
const hundredth = (value: number): number => Math.round(value * 100) / 100;

const mirrorParent = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { v: "1" } }) as KubeObject;

/** A `mirror` snapshot whose child was deleted (`claim`: the plan's create is claimed in the ledger), or whose child is missing (no claim). */
function mirrorSnapshot(i: number, claim: boolean): unknown {
  const parent = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p", namespace: "hop-calls", uid: "uid-p", labels: { "edgeloop.test/parent": "true" } }, data: { v: "1" } };
  const child = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p-mirror", namespace: "hop-calls", uid: `hop-call-${i}-${Date.now()}` } };
  return { controller: "mirror", key: "hop-calls/p", parent, children: { "ConfigMap.v1": [] }, triggers: claim ? [{ type: "DELETED", kind: "ConfigMap.v1", object: child }] : [], now: new Date().toISOString() };
}

/** Times {@link CALLS} reconcile calls per mode and kind, the modes alternated call by call; reports p50 and p99 of each. */
async function callLatency(stack: Stack, workerModule: string, storageDir: string, report: Parameters<Benchmark["run"]>[0]): Promise<void> {
  const local = await startInProcessWorker({ modulePath: workerModule, secret: stack.secret });
  const disk = await startInProcessWorker({ modulePath: workerModule, secret: stack.secret, storageDir });
  try {
    const inProcess = (transport: WorkerTransport): WorkerClient => new WorkerClient("http://in-process.invalid", stack.secret, undefined, transport);
    const clients: Record<Mode, WorkerClient> = { worker: new WorkerClient(stack.worker.url, stack.secret), in_process: inProcess(local.transport), in_process_disk: inProcess(disk.transport) };
    for (const claim of [false, true]) {
      const times: Record<Mode, number[]> = { worker: [], in_process: [], in_process_disk: [] };
      for (let i = 0; i < CALLS; i++) {
        for (const mode of MODES) {
          const started = performance.now();
          await clients[mode].reconcile("mirror", mirrorSnapshot(i, claim));
          times[mode].push(performance.now() - started);
        }
      }
      for (const mode of MODES) {
        const sorted = times[mode].sort((a, b) => a - b);
        const kind = claim ? "call_with_claim" : "call";
        report({ metric: `${mode}_${kind}_p50_ms`, value: hundredth(percentile(sorted, 50)), unit: "ms" });
        report({ metric: `${mode}_${kind}_p99_ms`, value: hundredth(percentile(sorted, 99)), unit: "ms" });
      }
    }
  } finally {
    local.close();
    disk.close();
  }
}

/** test/bench/in-process/relay-main.ts as one minified module, as the relay image ships relay/main.ts; returns its path. */
async function hopRelayBundle(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), "edgeloop-bench-hop-")), "relay.mjs");
  await build({ ...relayBuildOptions(outfile, { minify: true }), entryPoints: [join(ROOT, "test/bench/in-process/relay-main.ts")] });
  return outfile;
}


/** A relay process in `mode` against the stack (flags as test/bench/util.ts's relayProcess passes them); its log goes to a file. */
async function hopRelay(stack: Stack, script: string, mode: RelayMode, workerModule: string): Promise<{ child: ChildProcess; metrics(): Promise<string> }> {
  const opsPort = await freePort();
  // Beside the bundle, removed with it; kept when the benchmark fails (its path is printed).
  const logFile = join(dirname(script), `relay-${mode}.log`);
  const log = openSync(logFile, "a");
  const target = mode === "worker" ? ["--worker-url", stack.worker.url, "--worker-keep-alive-seconds", "4"] : ["--in-process-worker", workerModule];
  const child = spawn(
    join(ROOT, "node_modules/.bin/node"),
    [...RELAY_NODE_FLAGS, script, ...target, "--kubeconfig", stack.sim.kubeconfigPath ?? "", "--ops-port", String(opsPort), "--api-port", new URL(stack.apiUrl).port, "--concurrency", "32", "--log-level", process.env.EDGELOOP_BENCH_LOG_LEVEL ?? "info", "--log-format", "json"],
    { cwd: ROOT, env: { ...process.env, EDGELOOP_SECRET: stack.secret, ...RELAY_ENVIRONMENT }, stdio: ["ignore", log, "inherit"] },
  );
  closeSync(log);
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  // A relay that never gets ready is stopped here: the caller has no handle on it yet.
  await waitFor(`the ${mode} relay to be ready`, async () => await fetch(`${opsUrl}/readyz`).then((r) => r.ok, () => false), (ok) => ok, { timeoutMs: 120_000, intervalMs: 20 }).catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return { child, metrics: async () => (await fetch(`${opsUrl}/metrics`)).text() };
}

/** Deletes training pods one at a time; answers each deletion-to-replacement time (ms), sorted. */
async function selfHeal(stack: Stack): Promise<number[]> {
  const live = async (): Promise<Obj[]> =>
    ((await stack.sim.cluster.list(POD, { namespace: "default", labelSelector: "federatedlearningjob.sedna.io/worker-type=train" })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
  await waitFor(`${HEAL_JOBS * 2} training pods`, async () => (await live()).length, (count) => count === HEAL_JOBS * 2, { timeoutMs: 30_000, intervalMs: 20 });
  const latencies: number[] = [];
  let waiting: { slot: string; job: string; since: number } | undefined;
  const stop = onCreated(stack.sim.cluster, POD, (pod, at) => {
    const labels = pod.metadata.labels ?? {};
    if (waiting && labels["edgeloop.dev/worker"] === waiting.slot && labels["federatedlearningjob.sedna.io/name"] === waiting.job) {
      latencies.push(at - waiting.since);
      waiting = undefined;
    }
  });
  try {
    for (let i = 0; i < DELETIONS; i++) {
      const pods = await live();
      const victim = pods[i % pods.length] as Obj;
      waiting = { slot: victim.metadata.labels["edgeloop.dev/worker"], job: victim.metadata.labels["federatedlearningjob.sedna.io/name"], since: performance.now() };
      await stack.sim.cluster.delete(POD, "default", victim.metadata.name, { gracePeriodSeconds: 0 });
      await waitFor("the replacement", () => waiting, (pending) => pending === undefined, { timeoutMs: 10_000, intervalMs: 20 });
    }
  } finally {
    stop();
  }
  return latencies.sort((a, b) => a - b);
}

const mirrorReconciles = (metrics: string): number => metricSum(metrics, "edgeloop_reconciles_total", { controller: "mirror" });

/** Runs one mode's relay: waits for its start-up resync, measures self-heal, then a full resync. */
async function measure(stack: Stack, script: string, mode: RelayMode, workerModule: string, progress: (m: string) => void): Promise<ModeFigures> {
  progress(`${mode}: starting the relay (its start reconciles every parent)`);
  const relay = await hopRelay(stack, script, mode, workerModule);
  try {
    await waitFor("every mirror child", async () => (await stack.sim.cluster.list(CM, { namespace: "default", labelSelector: "edgeloop.test/mirror-of" })).items.length, (count) => count >= PARENTS, { timeoutMs: 300_000, intervalMs: 500 });
    await relayIdle(relay.metrics, 300_000);
    progress(`${mode}: self-heal, ${DELETIONS} training-pod deletions one at a time`);
    const heals = await selfHeal(stack);
    await relayIdle(relay.metrics, 60_000);
    progress(`${mode}: a full resync (SIGHUP) of ${PARENTS} mirror parents`);
    const before = await relay.metrics();
    const workerd = mode === "worker" ? childPid("workerd") : undefined;
    const sample = cpuSample({ relay: relay.child.pid, ...(workerd === undefined ? {} : { workerd }) });
    const started = performance.now();
    relay.child.kill("SIGHUP");
    await waitFor("every mirror parent reconciled", async () => mirrorReconciles(await relay.metrics()) - mirrorReconciles(before), (count) => count >= PARENTS, { timeoutMs: 300_000, intervalMs: 50 });
    const seconds = (performance.now() - started) / 1000;
    const cpu = sample();
    // Every reconcile of the window (the other controllers' few too) shares the CPU used.
    const reconciles = metricSum(await relay.metrics(), "edgeloop_reconciles_total") - metricSum(before, "edgeloop_reconciles_total");
    const per = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : ms / Math.max(1, reconciles));
    return {
      healP50: percentile(heals, 50),
      healP99: percentile(heals, 99),
      reconcilesPerSecond: PARENTS / seconds,
      relayCpuPerReconcile: per(cpu.othersMs.relay),
      workerdCpuPerReconcile: per(cpu.othersMs.workerd),
    };
  } finally {
    await stopChild(relay.child);
  }
}

const bench: Benchmark = {
  name: "hop",
  async run(report, progress) {
    progress("bundling the relay, and the Worker for Node (the in-process baseline)");
    const [script, workerModule] = await Promise.all([hopRelayBundle(), bundleWorkerForNode([FIXTURE_CONTROLLERS])]);
    const stack = await testStack({ nodes: ["cloud", "edge1", "edge2"] });
    // The stack's own relay shares this process's event loop with the sim: the modes' relays run in processes of their own.
    await stack.relay.stop();
    try {
      progress(`one reconcile call at a time, ${CALLS} per mode, without and with a ledger claim`);
      await callLatency(stack, workerModule, join(dirname(script), "do-calls"), report);
      for (const object of [
        { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: "default" }, spec: { url: "/m", format: "pb" } },
        { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "edge1-data", namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: "edge1" } },
        { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "edge2-data", namespace: "default" }, spec: { url: "/d", format: "txt", nodeName: "edge2" } },
      ]) {
        await stack.sim.cluster.create(object as KubeObject);
      }
      for (let i = 0; i < HEAL_JOBS; i++) await stack.sim.cluster.create(job(`hop-${i}`));
      progress(`creating ${PARENTS} mirror parents (their children come with the first relay)`);
      await inPool(
        Array.from({ length: PARENTS }, (_, i) => i),
        8,
        (i) => stack.sim.cluster.create(mirrorParent(`hop-${i}`)),
      );
      const figures: Partial<Record<RelayMode, ModeFigures>> = {};
      for (const mode of RELAY_MODES) {
        const measured = await measure(stack, script, mode, workerModule, progress);
        figures[mode] = measured;
        report({ metric: `${mode}_self_heal_p50_ms`, value: tenth(measured.healP50), unit: "ms" });
        report({ metric: `${mode}_self_heal_p99_ms`, value: tenth(measured.healP99), unit: "ms" });
        report({ metric: `${mode}_resync_reconciles_per_second`, value: Math.round(measured.reconcilesPerSecond), unit: "1/s" });
        if (measured.relayCpuPerReconcile !== undefined) report({ metric: `${mode}_relay_cpu_ms_per_reconcile`, value: Math.round(measured.relayCpuPerReconcile * 1000) / 1000, unit: "ms" });
      }
      const { worker, in_process: local } = figures;
      const ratio = (a: number, b: number): number => Math.round((a / Math.max(0.1, b)) * 100) / 100;
      if (worker && local) {
        report({ metric: "p99_ratio", value: ratio(worker.healP99, local.healP99), unit: "x", target: "<= 1.5" });
        report({ metric: "throughput_ratio", value: ratio(worker.reconcilesPerSecond, local.reconcilesPerSecond), unit: "x", target: ">= 0.7" });
      }
      if (worker?.workerdCpuPerReconcile !== undefined) report({ metric: "worker_cpu_ms_per_reconcile", value: Math.round(worker.workerdCpuPerReconcile * 1000) / 1000, unit: "ms", target: "<= 2" });
    } catch (error) {
      progress(`failed; the relays' logs are kept in ${dirname(script)}`);
      throw error;
    } finally {
      await stack.stop();
      rmSync(dirname(workerModule), { recursive: true, force: true });
    }
    if (process.env.EDGELOOP_BENCH_HOP_KEEP_LOGS) progress(`the relays' logs: ${dirname(script)}`);
    else rmSync(dirname(script), { recursive: true, force: true });
  },
};
export default bench;
