/**
 * Edge autonomy (functions/controllers/autonomy) on the local stack: a sim of 11 edge and
 * 4 cloud nodes, the Worker in workerd, a relay process. Side by side on the same stack:
 *
 * 1. **Pod create latency** with the autonomy Pod webhook (`autonomy-pods`, mutating, on
 *    Pod CREATE) registered and without it: sequential creates, one at a time, POSTed to
 *    the sim's HTTP API with the kubeconfig's server and token, as a client would (the
 *    webhook call is made by the sim's admission, `sim/api/admission/webhooks.ts`, on that path;
 *    the sim and this client share this process). For pods created unbound (the usual
 *    case: the relay answers them itself, `onlyWhen: object.spec.nodeName`) and for pods
 *    created bound to an autonomous edge node (the relay forwards them to the Worker,
 *    which patches their tolerations), reported separately. "Without" is the webhook's
 *    configuration deleted from the sim: its entry is moved out of `edgeloop-mutating`
 *    into a configuration of its own, created and deleted between blocks. With and
 *    without alternate in blocks (which goes first alternates too), after a warm-up of
 *    each, so drift hits both alike. Every block's pods are deleted after it and the relay
 *    left to be idle, so each block starts alike. Two series: back to back (the next
 *    create when the last is answered: the figures with the target), and paced
 *    ({@link PACE_MS} ms after each create, so the work a create sets off, scheduling,
 *    the kubelet, the controllers' reconciles, is mostly done before the next: closer to
 *    the webhook's own cost). Also timed: the webhook calls as the sim made them (and
 *    whether they reused their connection), and the relay's front called straight, the
 *    stack otherwise idle, on a kept-alive connection and on a new TLS connection each.
 *    Each block's progress line tells how busy the machine was and the CPU per create of
 *    this process, the relay and workerd, until the relay was idle again.
 * 2. **Annotation propagation**: an edge node with {@link PODS} pods bound to it, all
 *    Running; its `node.openyurt.io/autonomy-duration` changes (10m → 20m, then 20m → 0),
 *    timed from the node patch (through the Node webhook) until a watch has seen every pod
 *    carry the new `tolerationSeconds` on both its not-ready and unreachable NoExecute
 *    tolerations; the p50 of the pods' own times too.
 *
 * EDGELOOP_BENCH_AUTONOMY_CREATES (back-to-back creates each way, each kind; default
 * 1,000), _BLOCKS (4), _WARM_UP (50), _PACED_CREATES (200), _PACE_MS (50), _FRONT_CALLS
 * (500) and _PODS (500) make a smaller run. EDGELOOP_BENCH_AUTONOMY_LINK (a link spec, e.g.
 * `rtt=100ms,jitter=10ms`) puts the relay's link to the Worker across that link: the
 * webhooks on Pods are decided at the relay (ADR 0034), so their cost must not grow with it.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { Agent, request, type ClientRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { dirname } from "node:path";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { KubeConfig } from "@kubernetes/client-node";
import { waitFor } from "../../cli/wait.ts";
import { podWebhookSpec } from "../../functions/controllers/autonomy/pod-webhook.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import type { SimCluster } from "../../sim/index.ts";
import { testStack } from "../e2e/harness.ts";
import { parseLinkSpec } from "../../scripts/lib/link/spec.ts";
import { childPid, cpuSample, inPool, metricSum, percentile, relayBundle, relayIdle, relayProcess, stopChild, tenth, type CpuUse } from "./util.ts";

/** The relay–Worker link the bench runs across (none unless set). */
const LINK = process.env.EDGELOOP_BENCH_AUTONOMY_LINK;
const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const MUTATING = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration" };
const CREATES = Number(process.env.EDGELOOP_BENCH_AUTONOMY_CREATES ?? 1_000);
const BLOCKS = Number(process.env.EDGELOOP_BENCH_AUTONOMY_BLOCKS ?? 4);
const WARM_UP = Number(process.env.EDGELOOP_BENCH_AUTONOMY_WARM_UP ?? 50);
const PODS = Number(process.env.EDGELOOP_BENCH_AUTONOMY_PODS ?? 500);
/** Creates each way, each kind, in the paced series, and the pause after each. */
const PACED_CREATES = Number(process.env.EDGELOOP_BENCH_AUTONOMY_PACED_CREATES ?? 200);
const PACE_MS = Number(process.env.EDGELOOP_BENCH_AUTONOMY_PACE_MS ?? 50);
/** How long the stack's load at rest is measured. */
const REST_MS = 3_000;
/** Reviews POSTed straight to the relay's front, each way. */
const FRONT_CALLS = Number(process.env.EDGELOOP_BENCH_AUTONOMY_FRONT_CALLS ?? 500);
/** Edge nodes the bound creates go to, in turn (few pods each, as on an edge node). */
const EDGE_NODES = Array.from({ length: 10 }, (_, i) => `edge-${i + 1}`);
const CLOUD_NODES = Array.from({ length: 4 }, (_, i) => `cloud-${i + 1}`);
/** The edge node of the propagation scenario. */
const BULK_NODE = "edge-bulk";
const NAMESPACE = "autonomy-bench";
const DURATION = "node.openyurt.io/autonomy-duration";
const EDGE_WORKER = "openyurt.io/is-edge-worker";
const NOT_READY = "node.kubernetes.io/not-ready";
const UNREACHABLE = "node.kubernetes.io/unreachable";
/** The webhook's entry name in the configurations the stack registers (scripts/lib/install/objects.ts). */
const HOOK = `${podWebhookSpec.name}.edgeloop.dev`;
/** Where the sim calls the webhook on the relay's front. */
const HOOK_PATH = `/admission/${podWebhookSpec.name}`;
/** The configuration of its own the entry is moved to (deleted: "without"). */
const OWN_CONFIGURATION = "edgeloop-autonomy-pods";
/** Creates and deletes in flight at once when they are not what is measured. */
const CONCURRENCY = 32;
const WAIT_MS = 600_000;

type Relay = Awaited<ReturnType<typeof relayProcess>>;
type Report = Parameters<Benchmark["run"]>[0];
type Progress = (message: string) => void;
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested spec and webhooks
/** Pods created unbound (scheduled later) or bound (`spec.nodeName` set at create). */
type Kind = "unbound" | "bound";
type Mode = "with" | "without";

/** What every scenario works with: the stack, the relay process, the client, the webhook's own configuration, the processes whose CPU is counted. */
interface Bench {
  readonly stack: Stack;
  readonly relay: Relay;
  readonly client: HttpClient;
  /** The webhook's configuration of its own, to create again after a delete. */
  readonly own: KubeObject;
  /** The processes besides this one (the sim's) whose CPU time is counted: the relay, workerd. */
  readonly pids: Readonly<Record<string, number | undefined>>;
  readonly report: Report;
  readonly progress: Progress;
}

/** A pod of the bench: one sleeping container, no grace period; bound to `nodeName` when given. */
function podObject(name: string, nodeName?: string): KubeObject {
  const spec = { terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "10m", memory: "16Mi" } } }], ...(nodeName ? { nodeName } : {}) };
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NAMESPACE, labels: { app: "autonomy-bench" } }, spec } as KubeObject;
}

/** The `tolerationSeconds` of the pod's not-ready and unreachable NoExecute tolerations (`null`: a toleration without seconds; absent: no such toleration). */
function secondsOf(pod: KubeObject): { notReady?: number | null; unreachable?: number | null } {
  const found: { notReady?: number | null; unreachable?: number | null } = {};
  for (const toleration of ((pod as Obj).spec?.tolerations ?? []) as Obj[]) {
    if (toleration.effect !== "NoExecute") continue;
    const seconds = typeof toleration.tolerationSeconds === "number" ? toleration.tolerationSeconds : null;
    if (toleration.key === NOT_READY) found.notReady = seconds;
    if (toleration.key === UNREACHABLE) found.unreachable = seconds;
  }
  return found;
}

/** Whether both tolerations of the pod are at `seconds` (`null`: no seconds, never evicted). */
function hasSeconds(pod: KubeObject, seconds: number | null): boolean {
  const found = secondsOf(pod);
  return found.notReady === seconds && found.unreachable === seconds;
}

/** The seconds of a Go duration the bench uses (`10m`, `20m`, `0`); `null` for `0` (forever). */
function durationSeconds(duration: string): number | null {
  const minutes = /^(\d+)m$/.exec(duration);
  if (minutes) return Number(minutes[1]) * 60;
  if (duration === "0") return null;
  throw new Error(`the bench knows no duration ${duration}`);
}

// ---- the sim's HTTP API, as a client -----------------------------------------------

/** Creates pods over the sim's HTTP API, one connection kept alive; what it answered. */
interface HttpClient {
  /** POSTs the pod; resolves with the ms until the whole answer was read, and the object created. */
  create(pod: KubeObject): Promise<{ ms: number; created: KubeObject }>;
  close(): void;
}

/** A client of the cluster of `kubeconfigPath` (server and bearer token from the kubeconfig). */
function httpClient(kubeconfigPath: string): HttpClient {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const server = kc.getCurrentCluster()?.server ?? "";
  const token = kc.getCurrentUser()?.token ?? "";
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(`${server}/api/v1/namespaces/${NAMESPACE}/pods`);
  return {
    create: (pod) => timedPost(agent, url, token, JSON.stringify(pod)),
    close: () => agent.destroy(),
  };
}

/** One POST, timed from the request until the answer's last byte; throws unless it is 201. */
function timedPost(agent: Agent, url: URL, token: string, body: string): Promise<{ ms: number; created: KubeObject }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: `Bearer ${token}` };
    const req = request(url, { method: "POST", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const ms = performance.now() - started;
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== 201) return reject(new Error(`create answered ${res.statusCode ?? 0}: ${text.slice(0, 300)}`));
        resolve({ ms, created: JSON.parse(text) as KubeObject });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

// ---- the webhook, registered or not ------------------------------------------------

/**
 * Moves the autonomy Pod webhook's entry out of the stack's `edgeloop-mutating` into a
 * configuration of its own, which {@link setWebhook} creates and deletes; the other
 * mutating webhooks (none of them on pods) stay registered throughout. Returns that
 * configuration, registered.
 */
async function ownConfiguration(cluster: SimCluster): Promise<KubeObject> {
  const entriesOf = (configuration: KubeObject): Obj[] => ((configuration as Obj).webhooks ?? []) as Obj[];
  const shared = (await cluster.list(MUTATING)).items.find((configuration) => entriesOf(configuration).some((w) => w.name === HOOK));
  if (shared === undefined) throw new Error(`no MutatingWebhookConfiguration holds ${HOOK}`);
  const own = { apiVersion: MUTATING.apiVersion, kind: MUTATING.kind, metadata: { name: OWN_CONFIGURATION }, webhooks: entriesOf(shared).filter((w) => w.name === HOOK) } as KubeObject;
  await cluster.create(own);
  const rest = entriesOf(shared).filter((w) => w.name !== HOOK);
  if (rest.length === 0) await cluster.delete(MUTATING, undefined, shared.metadata.name ?? "");
  else await cluster.update({ ...shared, webhooks: rest });
  return own;
}

/** Registers (`with`) or deletes (`without`) the webhook's own configuration. */
async function setWebhook(cluster: SimCluster, own: KubeObject, mode: Mode): Promise<void> {
  const present = (await cluster.find(MUTATING, undefined, OWN_CONFIGURATION)) !== undefined;
  if (mode === "with" && !present) await cluster.create(own);
  if (mode === "without" && present) await cluster.delete(MUTATING, undefined, OWN_CONFIGURATION);
}

// ---- the cluster ---------------------------------------------------------------------

/** Labels the edge nodes as edge workers and makes them autonomous for `duration`; gives the bulk node room for its pods. */
async function edgeNodes(cluster: SimCluster, duration: string): Promise<void> {
  for (const name of [...EDGE_NODES, BULK_NODE]) {
    await cluster.patch(NODE, undefined, name, { metadata: { labels: { [EDGE_WORKER]: "true" }, annotations: { [DURATION]: duration } } }, "merge");
  }
  const pods = String(PODS + 110);
  await cluster.patch(NODE, undefined, BULK_NODE, { status: { capacity: { pods }, allocatable: { pods } } }, "merge", { subresource: "status" });
}

/** Deletes every pod of the bench's namespace at once (no grace period); waits until they are gone and the relay is idle again. */
async function deleteAll(cluster: SimCluster, relay: Relay): Promise<void> {
  const pods = (await cluster.list(POD, { namespace: NAMESPACE })).items;
  await inPool(pods, CONCURRENCY, (pod) => cluster.delete(POD, NAMESPACE, pod.metadata.name ?? "", { gracePeriodSeconds: 0 }));
  await waitFor("the bench's pods gone", async () => (await cluster.list(POD, { namespace: NAMESPACE })).items.length, (count) => count === 0, { timeoutMs: WAIT_MS, intervalMs: 100 });
  await relayIdle(relay.metrics, WAIT_MS);
}

/** The calls of the Pod webhook this process (the sim's webhook client) made: how long each took, and how many opened a new connection. */
interface WebhookCalls {
  /** Each call's ms, from the request sent (when `http.client.request.start` is published) until its answer was read. */
  readonly ms: number[];
  fresh(): number;
  stop(): void;
}

/** Times the calls of the Pod webhook this process (the sim's webhook client) makes from now on, through `node:diagnostics_channel`. */
function webhookCalls(): WebhookCalls {
  const ms: number[] = [];
  const started = new Map<ClientRequest, number>();
  let fresh = 0;
  const onStart = (message: unknown): void => {
    const sent = (message as { request: ClientRequest }).request;
    if (sent.path === HOOK_PATH) started.set(sent, performance.now());
  };
  const onFinish = (message: unknown): void => {
    const sent = (message as { request: ClientRequest }).request;
    const at = started.get(sent);
    if (at === undefined) return;
    started.delete(sent);
    ms.push(performance.now() - at);
    if (!sent.reusedSocket) fresh += 1;
  };
  subscribe("http.client.request.start", onStart);
  subscribe("http.client.response.finish", onFinish);
  return {
    ms,
    fresh: () => fresh,
    stop: () => {
      unsubscribe("http.client.request.start", onStart);
      unsubscribe("http.client.response.finish", onFinish);
    },
  };
}

// ---- scenario 1: create latency ------------------------------------------------------

/** How a series of creates runs: its name in the figures, creates each way, blocks each way, the pause after each create. */
interface Series {
  /** `""` for back to back, `_paced` for paced (appended to the figures' names). */
  readonly suffix: string;
  readonly creates: number;
  readonly blocks: number;
  readonly gapMs: number;
}

/** Back to back: the next create as soon as the last one is answered (the figures with the target). */
const BACK_TO_BACK: Series = { suffix: "", creates: CREATES, blocks: BLOCKS, gapMs: 0 };
/** Paced: a pause after each create, so that what it set off (scheduling, the kubelet, the controller's reconcile) is mostly done before the next. */
const PACED: Series = { suffix: "_paced", creates: PACED_CREATES, blocks: 2, gapMs: PACE_MS };

/** The latencies of each mode, how many bound pods "with" were not patched at create, and the webhook calls. */
interface CreateRun {
  readonly with: number[];
  readonly without: number[];
  /** Bound pods created with the webhook whose tolerations were not at the node's seconds (a failing webhook, ignored). */
  readonly unpatched: number;
  /** The webhook calls as the sim made them during the blocks with it, ms. */
  readonly callMs: number[];
  /** How many of those calls opened a new connection to the relay's front. */
  readonly freshConnections: number;
}

/** Creates `count` pods of `kind` one after another, `gapMs` apart; their latencies, and how many bound ones were not patched at create. */
async function createBlock(client: HttpClient, kind: Kind, prefix: string, count: number, seconds: number | null, gapMs = 0): Promise<{ ms: number[]; unpatched: number }> {
  const ms: number[] = [];
  let unpatched = 0;
  for (let i = 0; i < count; i++) {
    const node = kind === "bound" ? EDGE_NODES[i % EDGE_NODES.length] : undefined;
    const answer = await client.create(podObject(`${prefix}-${i}`, node));
    ms.push(answer.ms);
    if (kind === "bound" && !hasSeconds(answer.created, seconds)) unpatched += 1;
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return { ms, unpatched };
}

/** A warm-up of {@link WARM_UP} creates each way, not measured. */
async function warmUp(bench: Bench, kind: Kind, seconds: number | null): Promise<void> {
  bench.progress(`${kind} pods: warming up, ${WARM_UP} creates each way`);
  for (const mode of ["with", "without"] as const) {
    await setWebhook(bench.stack.sim.cluster, bench.own, mode);
    await createBlock(bench.client, kind, `${kind}-warm-${mode}`, WARM_UP, seconds);
    await deleteAll(bench.stack.sim.cluster, bench.relay);
  }
}

/** Scenario 1 for one kind of pod and one series: its blocks each way, alternating (and which goes first too). */
async function createLatencies(bench: Bench, kind: Kind, series: Series, seconds: number | null): Promise<CreateRun> {
  const run = { with: [] as number[], without: [] as number[], unpatched: 0 };
  const calls = webhookCalls();
  try {
    for (let block = 0; block < series.blocks; block++) {
      for (const mode of block % 2 === 0 ? (["with", "without"] as const) : (["without", "with"] as const)) {
        const created = await measuredBlock(bench, kind, series, mode, block, seconds);
        run[mode].push(...created.ms);
        if (mode === "with") run.unpatched += created.unpatched;
      }
    }
  } finally {
    calls.stop();
  }
  return { ...run, callMs: calls.ms, freshConnections: calls.fresh() };
}

/** One block of creates `mode` the webhook, then its pods deleted; tells its latencies and CPU, all the work it set off included (until the relay is idle). */
async function measuredBlock(bench: Bench, kind: Kind, series: Series, mode: Mode, block: number, seconds: number | null): Promise<{ ms: number[]; unpatched: number }> {
  const cluster = bench.stack.sim.cluster;
  await setWebhook(cluster, bench.own, mode);
  const reconciles = await reconcilesByController(bench.relay);
  const sample = cpuSample(bench.pids);
  const created = await createBlock(bench.client, kind, `${kind}${series.suffix.replace("_", "-")}-${mode}-${block}`, Math.ceil(series.creates / series.blocks), seconds, series.gapMs);
  const during = sample();
  await relayIdle(bench.relay.metrics, WAIT_MS);
  const cpu = sample();
  const pace = series.gapMs > 0 ? `, ${series.gapMs} ms apart` : "";
  const perCreate = reconcilesPer(reconciles, await reconcilesByController(bench.relay), created.ms.length);
  bench.progress(`${kind} pods${pace}, block ${block + 1}/${series.blocks} ${mode} the webhook: ${describeBlock(created.ms, during.machineBusy, cpu, "create")}; reconciles per create: ${perCreate}`);
  await deleteAll(cluster, bench.relay);
  return created;
}

/** The relay's reconciles so far (snapshots or events batches sent to the Worker), by controller. */
async function reconcilesByController(relay: Relay): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const match of (await relay.metrics()).matchAll(/^edgeloop_reconciles_total\{[^}]*controller="([^"]+)"[^}]*\}\s+(\S+)$/gm)) {
    counts.set(match[1] ?? "", (counts.get(match[1] ?? "") ?? 0) + Number(match[2]));
  }
  return counts;
}

/** The reconciles per create, by controller, between two counts (controllers with none left out). */
function reconcilesPer(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, creates: number): string {
  const per = [...after].map(([controller, count]) => [controller, (count - (before.get(controller) ?? 0)) / Math.max(1, creates)] as const).filter(([, count]) => count > 0);
  return per.length === 0 ? "none" : per.map(([controller, count]) => `${controller} ${tenth(count)}`).join(", ");
}

/** Latencies, how busy the machine was meanwhile, and the CPU each process spent per `what`. */
function describeBlock(ms: readonly number[], machineBusy: number, cpu: CpuUse, what: string): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const per = (total: number | undefined): string => (total === undefined ? "?" : String(tenth(total / Math.max(1, ms.length))));
  const others = Object.entries(cpu.othersMs).map(([name, total]) => `${name} ${per(total)} ms`);
  return `p50 ${tenth(percentile(sorted, 50))} ms, p99 ${tenth(percentile(sorted, 99))} ms; machine ${Math.round(machineBusy * 100)}% busy; CPU per ${what}: this process ${per(cpu.selfMs)} ms, ${others.join(", ")}`;
}

/**
 * Reports p50 and p99 of each mode, the p99 added by the webhook, and the webhook calls
 * as the sim made them. The target goes on the unbound back-to-back figure, and on
 * another one only if it meets it too.
 */
function reportLatencies(report: Report, kind: Kind, series: Series, run: CreateRun): void {
  const sorted = { with: [...run.with].sort((a, b) => a - b), without: [...run.without].sort((a, b) => a - b) };
  for (const mode of ["with", "without"] as const) {
    report({ metric: `pod_create_${kind}_${mode}_webhook_p50_ms${series.suffix}`, value: tenth(percentile(sorted[mode], 50)), unit: "ms" });
    report({ metric: `pod_create_${kind}_${mode}_webhook_p99_ms${series.suffix}`, value: tenth(percentile(sorted[mode], 99)), unit: "ms" });
  }
  const added = tenth(percentile(sorted.with, 99) - percentile(sorted.without, 99));
  const main = kind === "unbound" && series.suffix === "";
  const target = main || added <= 5 ? { target: "<= 5" } : {};
  report({ metric: `pod_webhook_added_p99_ms${kind === "unbound" ? "" : "_bound"}${series.suffix}`, value: added, unit: "ms", ...target });
  const calls = [...run.callMs].sort((a, b) => a - b);
  report({ metric: `webhook_call_${kind}_p50_ms${series.suffix}`, value: tenth(percentile(calls, 50)), unit: "ms" });
  report({ metric: `webhook_call_${kind}_p99_ms${series.suffix}`, value: tenth(percentile(calls, 99)), unit: "ms" });
  report({ metric: `webhook_call_${kind}_new_connections${series.suffix}`, value: run.freshConnections, unit: "connections" });
}

/** Scenario 1: for unbound, then bound pods, a warm-up, the back-to-back blocks, the paced ones. */
async function createScenario(bench: Bench): Promise<void> {
  const seconds = durationSeconds("10m");
  for (const kind of ["unbound", "bound"] as const) {
    await warmUp(bench, kind, seconds);
    for (const series of [BACK_TO_BACK, PACED]) {
      const run = await createLatencies(bench, kind, series, seconds);
      if (run.unpatched > 0) bench.progress(`WARNING: ${run.unpatched} bound pods created with the webhook were not patched at create`);
      if (run.callMs.length !== run.with.length) bench.progress(`WARNING: ${run.callMs.length} calls of the webhook for ${run.with.length} creates with it`);
      reportLatencies(bench.report, kind, series, run);
    }
  }
}

/** What the stack burns at rest (node heartbeats and what they set off) over {@link REST_MS}, for scale. */
async function restingLoad(bench: Bench): Promise<void> {
  const sample = cpuSample(bench.pids);
  await new Promise((resolve) => setTimeout(resolve, REST_MS));
  const cpu = sample();
  const perSecond = (total: number | undefined): string => (total === undefined ? "?" : String(Math.round((1000 * total) / REST_MS)));
  const others = Object.entries(cpu.othersMs).map(([name, total]) => `${name} ${perSecond(total)} ms`);
  bench.progress(`at rest: machine ${Math.round(cpu.machineBusy * 100)}% busy; CPU per second: this process ${perSecond(cpu.selfMs)} ms, ${others.join(", ")}`);
}

// ---- the relay's front, called directly ------------------------------------------------

/** An AdmissionReview of a pod CREATE, as the sim sends it (`sim/api/admission/webhooks.ts`). */
function reviewOf(pod: KubeObject): string {
  const kind = { group: "", version: "v1", kind: "Pod" };
  const resource = { group: "", version: "v1", resource: "pods" };
  const request = { uid: randomUUID(), kind, resource, requestKind: kind, requestResource: resource, name: pod.metadata.name, namespace: NAMESPACE, operation: "CREATE", userInfo: { username: "bench" }, object: pod, oldObject: null, dryRun: false, options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" } };
  return JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });
}

/** POSTs `body` to the front's `path`: on `agent`'s kept-alive connection, or on a new TLS connection (`agent` false); the ms until the answer was read. */
function frontPost(front: NonNullable<Stack["front"]>, path: string, body: string, agent: HttpsAgent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const req = httpsRequest(`${front.url}${path}`, { method: "POST", agent, ca: front.caPem, headers }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`the front answered ${res.statusCode ?? 0}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The relay's front alone, the system otherwise idle: {@link FRONT_CALLS} reviews of an
 * unbound pod (answered by the relay) on one kept-alive connection, then each on a new
 * TLS connection, and of a bound pod (forwarded to the Worker); p50 and p99 of each.
 */
async function frontLatencies(bench: Bench): Promise<void> {
  const front = bench.stack.front;
  if (front === undefined) throw new Error("the stack serves no front");
  const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
  const series: [string, (i: number) => Promise<number>][] = [
    ["unbound_keepalive", (i) => frontPost(front, HOOK_PATH, reviewOf(podObject(`front-u-${i}`)), agent)],
    ["unbound_new_tls", (i) => frontPost(front, HOOK_PATH, reviewOf(podObject(`front-n-${i}`)), false)],
    ["bound_keepalive", (i) => frontPost(front, HOOK_PATH, reviewOf(podObject(`front-b-${i}`, EDGE_NODES[0])), agent)],
  ];
  try {
    bench.progress(`the relay's front called directly, nothing else going on: ${FRONT_CALLS} reviews each way`);
    for (const [name, call] of series) {
      for (let i = 0; i < WARM_UP; i++) await call(i);
      const ms: number[] = [];
      const sample = cpuSample(bench.pids);
      for (let i = 0; i < FRONT_CALLS; i++) ms.push(await call(i));
      const cpu = sample();
      bench.progress(`front, ${name}: ${describeBlock(ms, cpu.machineBusy, cpu, "call")}`);
      ms.sort((a, b) => a - b);
      bench.report({ metric: `front_review_${name}_p50_ms`, value: tenth(percentile(ms, 50)), unit: "ms" });
      bench.report({ metric: `front_review_${name}_p99_ms`, value: tenth(percentile(ms, 99)), unit: "ms" });
    }
  } finally {
    agent.destroy();
  }
}

// ---- scenario 2: annotation propagation ----------------------------------------------

/** When (performance.now()) a watch first saw each pod of the namespace satisfy `ok`. */
function arrivals(cluster: SimCluster, ok: (pod: KubeObject) => boolean): { readonly at: Map<string, number>; stop(): void } {
  const at = new Map<string, number>();
  const stop = cluster.watch(POD, (event) => {
    const pod = event.object;
    const name = pod.metadata.name ?? "";
    if (event.type === "DELETED" || pod.metadata.namespace !== NAMESPACE || at.has(name)) return;
    if (ok(pod)) at.set(name, performance.now());
  });
  return { at, stop };
}

/** Creates {@link PODS} pods bound to the bulk node (in process, through admission) and waits until all run with their tolerations at `seconds`, then until the relay is idle. */
async function bulkPods(cluster: SimCluster, relay: Relay, seconds: number | null, progress: Progress): Promise<void> {
  const ready = arrivals(cluster, (pod) => (pod as Obj).status?.phase === "Running" && hasSeconds(pod, seconds));
  const before = await reconcilesByController(relay);
  const started = performance.now();
  try {
    progress(`creating ${PODS} pods bound to ${BULK_NODE}, ${CONCURRENCY} at a time`);
    await inPool(Array.from({ length: PODS }, (_, i) => podObject(`bulk-${i}`, BULK_NODE)), CONCURRENCY, (pod) => cluster.create(pod));
    const created = performance.now() - started;
    await waitFor(`${PODS} pods Running on ${BULK_NODE} at ${seconds ?? "no"} seconds`, () => ready.at.size, (count) => count >= PODS, { timeoutMs: WAIT_MS, intervalMs: 20 });
    const running = performance.now() - started;
    await relayIdle(relay.metrics, WAIT_MS);
    const idle = performance.now() - started;
    const reconciles = reconcilesPer(before, await reconcilesByController(relay), 1);
    progress(`created in ${Math.round(created)} ms, all Running in ${Math.round(running)} ms, the relay idle after ${Math.round(idle)} ms; reconciles meanwhile: ${reconciles}`);
  } finally {
    ready.stop();
  }
}

/** What one change of the bulk node's duration took. */
interface Propagation {
  readonly allMs: number;
  readonly p50Ms: number;
  /** Snapshots of the node the relay sent to the Worker meanwhile. */
  readonly reconciles: number;
}

/** Changes the bulk node's duration to `to`; times until every one of its pods carries the new seconds. */
async function propagate(cluster: SimCluster, relay: Relay, to: string): Promise<Propagation> {
  const seconds = durationSeconds(to);
  const before = metricSum(await relay.metrics(), "edgeloop_reconciles_total", { controller: "autonomy" });
  const seen = arrivals(cluster, (pod) => hasSeconds(pod, seconds));
  try {
    const started = performance.now();
    await cluster.patch(NODE, undefined, BULK_NODE, { metadata: { annotations: { [DURATION]: to } } }, "merge");
    await waitFor(`${PODS} pods at ${seconds ?? "no"} seconds`, () => seen.at.size, (count) => count >= PODS, { timeoutMs: WAIT_MS, intervalMs: 5 });
    const times = [...seen.at.values()].map((at) => at - started).sort((a, b) => a - b);
    await relayIdle(relay.metrics, WAIT_MS);
    const reconciles = metricSum(await relay.metrics(), "edgeloop_reconciles_total", { controller: "autonomy" }) - before;
    return { allMs: times[times.length - 1] ?? 0, p50Ms: percentile(times, 50), reconciles };
  } finally {
    seen.stop();
  }
}

/** Scenario 2: 10m → 20m, then 20m → 0, on the bulk node's pods. */
async function propagation(bench: Bench): Promise<void> {
  const { stack, relay, report, progress } = bench;
  const cluster = stack.sim.cluster;
  await setWebhook(cluster, bench.own, "with");
  await bulkPods(cluster, relay, durationSeconds("10m"), progress);
  for (const [from, to] of [["10m", "20m"], ["20m", "0"]] as const) {
    const run = await propagate(cluster, relay, to);
    progress(`${from} → ${to}: all ${PODS} pods in ${Math.round(run.allMs)} ms (p50 ${Math.round(run.p50Ms)} ms), ${run.reconciles} snapshots of the node sent to the Worker`);
    const name = `${from}_to_${to}`;
    report({ metric: `annotation_to_all_pods_ms_${name}`, value: Math.round(run.allMs), unit: "ms" });
    report({ metric: `annotation_to_pod_p50_ms_${name}`, value: Math.round(run.p50Ms), unit: "ms" });
  }
}

// ---- the stack -------------------------------------------------------------------------

/** Starts the stack (the relay as its own process), the edge nodes autonomous for 10m, the bench's namespace. */
async function start(progress: Progress): Promise<{ stack: Stack; relay: Relay; own: KubeObject; script: string }> {
  progress(`starting the stack: ${EDGE_NODES.length + 1} edge and ${CLOUD_NODES.length} cloud nodes, the Worker, a relay process`);
  const script = await relayBundle();
  const stack = await testStack({ nodes: [...EDGE_NODES, ...CLOUD_NODES, BULK_NODE], extraControllerDirs: [], ...(LINK ? { link: parseLinkSpec(LINK) } : {}) }).catch((error: unknown) => {
    rmSync(dirname(script), { recursive: true, force: true });
    throw error;
  });
  let relay: Relay | undefined;
  try {
    await stack.relay.stop();
    relay = await relayProcess(stack.link ? { ...stack, worker: { ...stack.worker, url: stack.link.url } } : stack, script);
    if (LINK) progress(`the relay reaches the Worker across the link ${LINK}`);
    const cluster = stack.sim.cluster;
    await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } as KubeObject);
    await edgeNodes(cluster, "10m");
    const own = await ownConfiguration(cluster);
    await relayIdle(relay.metrics, WAIT_MS);
    return { stack, relay, own, script };
  } catch (error) {
    await stop(stack, relay, script);
    throw error;
  }
}

/** Stops the relay process and the stack; removes the relay's bundle and (unless EDGELOOP_BENCH_RELAY_LOG named it) its log. */
async function stop(stack: Stack, relay: Relay | undefined, script: string): Promise<void> {
  if (relay) await stopChild(relay.child);
  await stack.stop();
  // The stack's stop leaves the front's TLS folder (scripts/lib/stack.ts: startStack's stop skips front.remove()).
  if (stack.front) rmSync(dirname(stack.front.certFile), { recursive: true, force: true });
  rmSync(dirname(script), { recursive: true, force: true });
  if (relay && !process.env.EDGELOOP_BENCH_RELAY_LOG) rmSync(dirname(relay.logFile), { recursive: true, force: true });
}

const benchmark: Benchmark = {
  name: "autonomy",
  async run(report, progress) {
    const { stack, relay, own, script } = await start(progress);
    const client = httpClient(stack.sim.kubeconfigPath ?? "");
    const bench: Bench = { stack, relay, client, own, pids: { relay: relay.child.pid, workerd: childPid("workerd") }, report, progress };
    try {
      await restingLoad(bench);
      await createScenario(bench);
      await frontLatencies(bench);
      await propagation(bench);
    } finally {
      client.close();
      await stop(stack, relay, script);
    }
  },
};
export default benchmark;
