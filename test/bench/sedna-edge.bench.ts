/**
 * Sedna's edge channel (issue 26, ADR 0028) on the local stack: a sim of 1,000 nodes
 * (EDGELOOP_BENCH_LC_NODES), the Worker in workerd, a relay process serving `sedna-gm`,
 * and an upstream-protocol LocalController per node (test/support/local-controller.ts),
 * all connected at once.
 *
 * - fan-out: ONE FederatedLearningJob whose training workers run on every node (what
 *   upstream's GM sends to every one of those nodes, whole, on each change) is changed
 *   once (its aggregation worker's env, which rolls one pod, not a thousand): ms from the
 *   write until each LC has read the changed job (about 200 KB of JSON, 270 KB a frame,
 *   to each of 1,000 LCs); p50, p99, and all (the last LC). Then the same for a small
 *   object: the Model the job uses (sent to the job's nodes), its spec changed once.
 * - reconnect storm: every LC's socket dropped at once (as a network failure drops them;
 *   each redials at once, as upstream's does): ms from the drop until each LC has been
 *   sent again everything it held (its whole state); p50, p99, max.
 * - status: every LC reports its node's Dataset (each node has its own) R times back to
 *   back (EDGELOOP_BENCH_LC_ROUNDS, default 5): messages per second from the first send
 *   until every Dataset's status shows the last count (read back from the cluster).
 *
 * The LCs share this process with the sim; they keep the bytes of what they are sent and
 * parse nothing (a real LC parses on its own node).
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { freePort } from "../../cli/ports.ts";
import { waitFor } from "../../cli/wait.ts";
import { testStack } from "../e2e/harness.ts";
import { LocalController, type ReceivedMessage } from "../support/local-controller.ts";
import { childPid, cpuSample, metricSum, percentile, relayBundle, relayProcess, tenth, type CpuUse } from "./util.ts";

const NODES = Number(process.env.EDGELOOP_BENCH_LC_NODES ?? 1_000);
const ROUNDS = Number(process.env.EDGELOOP_BENCH_LC_ROUNDS ?? 5);
const JOB = "fanout";
const NAMESPACE = "default";
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const DATASET = { apiVersion: "sedna.io/v1alpha1", kind: "Dataset" };
const MODEL = { apiVersion: "sedna.io/v1alpha1", kind: "Model" };
/** Generous: the first state of 1,000 nodes is a thousand copies of a job of a thousand workers. */
const WAIT_MS = 600_000;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested status

const nodeName = (i: number): string => `sim-node-${i + 1}`;
const datasetName = (i: number): string => `data-${i + 1}`;

/** One FL job: its aggregator on the first node, a training worker on each node (each with its node's Dataset). */
function fanoutJob(): KubeObject {
  const container = (image: string): Obj => ({ name: "worker", image, env: [{ name: "rev", value: "0" }] });
  return {
    apiVersion: "sedna.io/v1alpha1",
    kind: "FederatedLearningJob",
    metadata: { name: JOB, namespace: NAMESPACE },
    spec: {
      aggregationWorker: { model: { name: "model" }, template: { spec: { nodeName: nodeName(0), terminationGracePeriodSeconds: 0, containers: [container("agg:v1")] } } },
      trainingWorkers: Array.from({ length: NODES }, (_, i) => ({ dataset: { name: datasetName(i) }, template: { spec: { nodeName: nodeName(i), terminationGracePeriodSeconds: 0, containers: [container("train:v1")] } } })),
    },
  } as KubeObject;
}

/** For each LC, when `matches` first holds for a message it reads (ms after `since`); resolves once every LC has one. */
function firstMatch(lcs: readonly LocalController[], since: number, matches: (lc: LocalController, message: ReceivedMessage) => boolean): { readonly done: Promise<number[]>; cancel(): void } {
  const latencies = new Map<LocalController, number>();
  const listeners = new Map<LocalController, (message: ReceivedMessage) => void>();
  let finish: (values: number[]) => void = () => undefined;
  const done = new Promise<number[]>((resolve) => (finish = resolve));
  const cancel = (): void => {
    for (const [lc, listener] of listeners) lc.off("message", listener);
  };
  for (const lc of lcs) {
    const listener = (message: ReceivedMessage): void => {
      if (latencies.has(lc) || !matches(lc, message)) return;
      latencies.set(lc, message.at - since);
      if (latencies.size === lcs.length) {
        cancel();
        finish([...latencies.values()].sort((a, b) => a - b));
      }
    };
    listeners.set(lc, listener);
    lc.on("message", listener);
  }
  return { done, cancel };
}

async function within<T>(what: string, promise: Promise<T>, ms: number, progress: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s (${progress()})`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where the CPU of a part went: this process (the sim and the LCs), the relay, workerd. */
function cpuLine(used: CpuUse): string {
  const ms = (value: number | undefined): string => (value === undefined ? "?" : String(Math.round(value)));
  return `CPU ms: sim and LCs ${ms(used.selfMs)}, relay ${ms(used.othersMs["relay"])}, workerd ${ms(used.othersMs["workerd"])}; machine ${Math.round(used.machineBusy * 100)}% busy`;
}

const isJob = (message: ReceivedMessage): boolean => message.header.resourceKind === "federatedlearningjob" && message.header.resourceName === JOB && message.header.operation === "insert";

const bench: Benchmark = {
  name: "sedna-edge",
  async run(report, progress) {
    const script = await relayBundle();
    progress(`starting the stack: a sim of ${NODES} nodes, the Worker, a relay process serving sedna-gm`);
    const stack = await testStack({ nodes: NODES });
    await stack.relay.stop();
    const port = await freePort();
    const relay = await relayProcess(stack, script, 120_000, ["--sedna-gm-port", String(port)]);
    const lcs = Array.from({ length: NODES }, (_, i) => new LocalController({ gmAddress: `127.0.0.1:${port}`, nodeName: nodeName(i), retryIntervalMs: 500, parseInserts: false }));
    try {
      await stack.sim.cluster.create({ ...MODEL, metadata: { name: "model", namespace: NAMESPACE }, spec: { url: "/m", format: "pb" } } as KubeObject);
      for (let i = 0; i < NODES; i++) await stack.sim.cluster.create({ ...DATASET, metadata: { name: datasetName(i), namespace: NAMESPACE }, spec: { url: "/d", format: "txt", nodeName: nodeName(i) } } as KubeObject);
      for (const lc of lcs) lc.start();
      const connected = (): number => lcs.filter((lc) => lc.connected).length;
      await waitFor(`${NODES} LCs connected`, connected, (n) => n === NODES, { timeoutMs: 60_000, intervalMs: 50 });

      progress(`one job of ${NODES} training workers: its first state on every LC`);
      const first = firstMatch(lcs, performance.now(), (_lc, message) => isJob(message));
      await stack.sim.cluster.create(fanoutJob());
      const initial = await within("the job on every LC", first.done, WAIT_MS, () => `${connected()} connected`);
      progress(`first state: p50 ${tenth(percentile(initial, 50))} ms, all ${tenth(initial.at(-1) ?? 0)} ms`);

      progress("fan-out: one change of the job to every LC");
      const marker = Buffer.from('"rev","value":"1"');
      const processes = { relay: relay.child.pid, workerd: childPid("workerd") };
      let cpu = cpuSample(processes);
      const changedAt = performance.now();
      const fanout = firstMatch(lcs, changedAt, (_lc, message) => isJob(message) && message.content !== null && message.content.includes(marker));
      const job = (await stack.sim.cluster.get(FL, NAMESPACE, JOB)) as Obj;
      const aggregation = structuredClone(job.spec.aggregationWorker) as Obj;
      aggregation.template.spec.containers[0].env = [{ name: "rev", value: "1" }];
      await stack.sim.cluster.patch(FL, NAMESPACE, JOB, { spec: { aggregationWorker: aggregation } }, "merge");
      const spread = await within("the change on every LC", fanout.done, WAIT_MS, () => "");
      progress(`fan-out: ${cpuLine(cpu())}`);
      report({ metric: `fanout_${NODES}_lcs_p50_ms`, value: tenth(percentile(spread, 50)), unit: "ms" });
      report({ metric: `fanout_${NODES}_lcs_p99_ms`, value: tenth(percentile(spread, 99)), unit: "ms" });
      report({ metric: `fanout_${NODES}_lcs_all_ms`, value: tenth(spread.at(-1) ?? 0), unit: "ms" });

      progress("fan-out of a small object: one change of the Model the job uses, to every LC");
      const modelAt = performance.now();
      const modelMarker = Buffer.from('"url":"/m2"');
      const modelFanout = firstMatch(lcs, modelAt, (_lc, message) => message.header.resourceKind === "model" && message.header.operation === "insert" && message.content !== null && message.content.includes(modelMarker));
      await stack.sim.cluster.patch(MODEL, NAMESPACE, "model", { spec: { url: "/m2" } }, "merge");
      const modelSpread = await within("the Model's change on every LC", modelFanout.done, WAIT_MS, () => "");
      report({ metric: `fanout_model_${NODES}_lcs_p50_ms`, value: tenth(percentile(modelSpread, 50)), unit: "ms" });
      report({ metric: `fanout_model_${NODES}_lcs_p99_ms`, value: tenth(percentile(modelSpread, 99)), unit: "ms" });
      report({ metric: `fanout_model_${NODES}_lcs_all_ms`, value: tenth(modelSpread.at(-1) ?? 0), unit: "ms" });

      progress(`reconnect storm: ${NODES} sockets dropped at once`);
      const held = new Map(lcs.map((lc) => [lc, new Set(["dataset", "model", "federatedlearningjob"].flatMap((kind) => [...lc.held(kind)].map((name) => `${kind}/${name}`)))]));
      const dropped = performance.now();
      const connects = new Map(lcs.map((lc) => [lc, lc.counters.connects]));
      const resent = new Map(lcs.map((lc) => [lc, new Set<string>()]));
      const storm = firstMatch(lcs, dropped, (lc, message) => {
        if (message.header.operation !== "insert" || lc.counters.connects === connects.get(lc)) return false;
        const seen = resent.get(lc) ?? new Set<string>();
        seen.add(`${message.header.resourceKind}/${message.header.namespace}/${message.header.resourceName}`);
        return [...(held.get(lc) ?? [])].every((name) => seen.has(name));
      });
      cpu = cpuSample(processes);
      for (const lc of lcs) lc.drop();
      const storms = await within("every LC's state again", storm.done, WAIT_MS, () => `${connected()} connected`);
      progress(`reconnect storm: ${cpuLine(cpu())}`);
      report({ metric: `reconnect_storm_${NODES}_lcs_p50_ms`, value: tenth(percentile(storms, 50)), unit: "ms" });
      report({ metric: `reconnect_storm_${NODES}_lcs_p99_ms`, value: tenth(percentile(storms, 99)), unit: "ms" });
      report({ metric: `reconnect_storm_${NODES}_lcs_max_ms`, value: tenth(storms.at(-1) ?? 0), unit: "ms" });

      progress(`status: ${NODES} LCs x ${ROUNDS} Dataset reports, back to back`);
      cpu = cpuSample(processes);
      const started = performance.now();
      for (let round = 1; round <= ROUNDS; round++) lcs.forEach((lc, i) => lc.reportDatasetSamples(NAMESPACE, datasetName(i), round));
      const reported = async (): Promise<number> => ((await stack.sim.cluster.list(DATASET, { namespace: NAMESPACE })).items as Obj[]).filter((d) => d.status?.numberOfSamples === ROUNDS).length;
      await waitFor(`every Dataset's status at ${ROUNDS}`, reported, (n) => n === NODES, { timeoutMs: WAIT_MS, intervalMs: 100 });
      const seconds = (performance.now() - started) / 1000;
      const frames = (result: string): number => metricSum(metricsText, "edgeloop_channel_frames_total", { channel: "sedna-gm", direction: "up", result });
      const metricsText = await relay.metrics();
      progress(`status: ${cpuLine(cpu())}`);
      progress(`status: frames up accepted ${frames("accepted")} (the hellos included), refused ${frames("refused")}, failed ${frames("failed")}`);
      report({ metric: "status_messages_per_second", value: Math.round((NODES * ROUNDS) / seconds), unit: "1/s" });
      report({ metric: `status_${NODES * ROUNDS}_messages_written_s`, value: tenth(seconds), unit: "s" });
    } finally {
      await Promise.all(lcs.map((lc) => lc.stop()));
      relay.child.kill("SIGTERM");
      await stack.stop();
    }
  },
};
export default bench;
