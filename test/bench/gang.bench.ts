/**
 * The gang scheduler (functions/controllers/gang) on the local stack: a sim of 1,000 nodes,
 * the Worker in workerd, a relay process. Side by side on the same sim:
 *
 * 1. **Gang scheduler**: 10,000 pending pods in 1,250 groups of 8 (`schedulerName:
 *    fluxnetes`). Seven pods of every group are created first: the groups are
 *    provisional and nothing can be bound; once `GET /v1/gangs` shows them all, the 8th
 *    pod of every group is created, as fast as the sim takes creates, and the time runs
 *    from the first of those creates until every pod has a node. Checked: no pod was
 *    bound before its group was complete, every group has all its pods bound, no node is
 *    over its allocatable. Also counted: the events batches the Worker served from the
 *    first create until the relay was idle again (the last binds' Events applied).
 * 2. **The sim's default scheduler**, the baseline: the same 10,000 pods without
 *    `schedulerName` or group labels, created while the scheduler is paused (as with
 *    kube-scheduler down), timed from its resume until every pod has a node. The first
 *    scenario's pods are deleted first, so both start from the same empty nodes; the gang
 *    scheduler keeps running (it watches every pod), as it would in a cluster.
 * 3. **The cost of one pass** as the queue grows, 100 to 10,000 pending groups of 8 on
 *    1,000 nodes: measured in process, in Node 24 over `node:sqlite`, not in workerd
 *    (see `./gang-pass.ts`).
 *
 * Pods ask for 100m cpu and 64Mi, so each 8-cpu node has room for 80 of them (10 each
 * on average). The creates are made in process (the sim runs in this process), at most
 * {@link CONCURRENCY} at once. EDGELOOP_BENCH_GANG_PODS, _NODES and _PASS_GROUPS make a
 * smaller run (e.g. 800 pods on 100 nodes, passes of 100,1000 groups);
 * EDGELOOP_BENCH_LOG_LEVEL=debug makes the relay log every batch it delivers (events,
 * actions, Worker and apply ms); EDGELOOP_BENCH_PROFILE=DIR writes the CPU profile of this
 * process (the sim) while the gang scheduler places the pods, beside the relay's (util.ts).
 */
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { testStack } from "../e2e/harness.ts";
import { checkCapacity, CONCURRENCY, createNamespace, emptyNodes, gangScenario, GROUP_SIZE, podSpec, watchBinds, type Relay } from "./gang-scenario.ts";
import { inspectMs, passMs } from "./gang-pass.ts";
import { inPool, relayBundle, relayIdle, relayProcess, tenth } from "./util.ts";

const NODE = { apiVersion: "v1", kind: "Node" };
const GROUPS = Math.floor(Number(process.env.EDGELOOP_BENCH_GANG_PODS ?? 10_000) / GROUP_SIZE);
const PODS = GROUPS * GROUP_SIZE;
const NODES = Number(process.env.EDGELOOP_BENCH_GANG_NODES ?? 1_000);
const PASS_GROUPS = (process.env.EDGELOOP_BENCH_GANG_PASS_GROUPS ?? "100,1000,2500,5000,10000").split(",").map(Number);
/** Passes timed per queue length (the median is reported). */
const PASS_RUNS = 5;
const GANG_NAMESPACE = "gang";
const PLAIN_NAMESPACE = "plain";
/** How long any wait may take before the bench gives up. */
const WAIT_MS = 600_000;

/** Pod `index` for the default scheduler. */
function plainPod(index: number): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `p${index}`, namespace: PLAIN_NAMESPACE }, spec: podSpec() } as KubeObject;
}

/** Scenario 2: the sim's default scheduler places {@link PODS} pods created while it was paused; the seconds it took. */
async function defaultScenario(stack: Stack, relay: Relay, progress: (message: string) => void): Promise<number> {
  const cluster = stack.sim.cluster;
  await createNamespace(cluster, PLAIN_NAMESPACE);
  const watch = watchBinds(cluster, PLAIN_NAMESPACE);
  stack.sim.pauseScheduler();
  try {
    progress(`creating ${PODS} pods for the default scheduler, paused`);
    await inPool(Array.from({ length: PODS }, (_, i) => plainPod(i)), CONCURRENCY, (pod) => cluster.create(pod));
    await relayIdle(relay.metrics, WAIT_MS);
    if (watch.bound() > 0) throw new Error(`the paused default scheduler bound ${watch.bound()} pods`);
    progress(`resuming the default scheduler; timing until all ${PODS} pods are bound`);
    const started = performance.now();
    stack.sim.resumeScheduler();
    await waitFor(`all ${PODS} pods bound by the default scheduler`, () => watch.bound(), (count) => count >= PODS, { timeoutMs: WAIT_MS, intervalMs: 20 });
    const seconds = (performance.now() - started) / 1000;
    await checkCapacity(cluster);
    return seconds;
  } finally {
    stack.sim.resumeScheduler();
    watch.stop();
  }
}

/** Scenarios 1 and 2 on one stack; reports their figures. */
async function onStack(report: Parameters<Benchmark["run"]>[0], progress: (message: string) => void): Promise<void> {
  progress(`starting the stack: a sim of ${NODES} nodes, the Worker, a relay process`);
  const stack = await testStack({ nodes: NODES, extraControllerDirs: [] });
  let relay: Relay | undefined;
  try {
    await waitFor(`${NODES} nodes`, async () => (await stack.sim.cluster.list(NODE)).items.length, (count) => count >= NODES, { timeoutMs: WAIT_MS, intervalMs: 100 });
    await stack.relay.stop();
    relay = await relayProcess(stack, await relayBundle());
    await relayIdle(relay.metrics, WAIT_MS);

    const gang = await gangScenario(stack, relay, progress, GANG_NAMESPACE, GROUPS);
    progress(`${gang.batches} events batches, ${tenth(gang.eventsPerBatch)} Pod/Node watch events and ${Math.round(gang.meanBatchMs)} ms (Worker + apply) per batch on average`);
    const gangRate = PODS / gang.seconds;
    report({ metric: "pods_per_second", value: Math.round(gangRate), unit: "1/s", target: ">= 1000" });
    report({ metric: "seconds_to_place_all", value: tenth(gang.seconds), unit: "s" });
    report({ metric: "worker_requests", value: gang.batches, unit: "batches" });

    progress("deleting the gang pods: both scenarios start from empty nodes");
    await emptyNodes(stack, relay, GANG_NAMESPACE);
    const seconds = await defaultScenario(stack, relay, progress);
    const defaultRate = PODS / seconds;
    report({ metric: "default_scheduler_pods_per_second", value: Math.round(defaultRate), unit: "1/s" });
    report({ metric: "ratio_to_default_scheduler", value: Math.round((gangRate / defaultRate) * 100) / 100, unit: "x", target: ">= 1" });
  } finally {
    relay?.child.kill("SIGTERM");
    await stack.stop();
  }
}

const bench: Benchmark = {
  name: "gang",
  async run(report, progress) {
    await onStack(report, progress);
    for (const groups of PASS_GROUPS) {
      progress(`one pass with ${groups} pending groups of ${GROUP_SIZE} on 1000 nodes, in process (median of ${PASS_RUNS})`);
      report({ metric: `pass_ms_${groups}_groups`, value: tenth(passMs(groups, PASS_RUNS)), unit: "ms", series: "pass_ms", x: groups, xUnit: "pending groups" });
      progress(`GET /v1/gangs with ${groups} pending groups: the object's read from the last pass's rows, and from none (a pass, as after a restart)`);
      const inspect = inspectMs(groups, PASS_RUNS);
      report({ metric: `inspect_ms_${groups}_groups`, value: tenth(inspect.kept), unit: "ms", series: "inspect_ms", x: groups, xUnit: "pending groups" });
      report({ metric: `inspect_first_ms_${groups}_groups`, value: tenth(inspect.first), unit: "ms", series: "inspect_first_ms", x: groups, xUnit: "pending groups" });
      report({ metric: `inspect_fresh_ms_${groups}_groups`, value: tenth(inspect.fresh), unit: "ms", series: "inspect_fresh_ms", x: groups, xUnit: "pending groups" });
    }
  },
};
export default bench;
