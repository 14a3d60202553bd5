/**
 * The autonomy Pod webhook's added latency on the real control plane, as
 * `../autonomy.bench.ts` measures it on the sim (its back-to-back series): unbound pods
 * created one after another over HTTPS with the admin kubeconfig's client certificate,
 * on one kept-alive connection, with the webhook registered and without it (its entry
 * moved out of the stack's mutating configuration into one of its own, created and
 * deleted between blocks; each change waited for until a probe pod shows it, since
 * kube-apiserver picks configurations up from a watch). With and without alternate in
 * blocks (which goes first alternates too), after a warm-up of each; every block's pods
 * are deleted after it and the relay left idle. Nodes: 10 edge (autonomous for 10m) and
 * 4 cloud kwok nodes. EDGELOOP_BENCH_AUTONOMY_CREATES (each way; default 1,000),
 * _BLOCKS (4) and _WARM_UP (50) make a smaller run.
 */
import { Agent, request } from "node:https";
import { KubeConfig } from "@kubernetes/client-node";
import { waitFor } from "../../../cli/wait.ts";
import { podWebhookSpec } from "../../../functions/controllers/autonomy/pod-webhook.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { inPool, percentile, relayIdle, tenth } from "../util.ts";
import { clusterBench, createNamespace, NODE, POD, WAIT_MS, type BenchCluster, type ClusterBench } from "./stack.ts";
import type { Progress, Report } from "./figures.ts";

const MUTATING = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration" };
const CREATES = Number(process.env.EDGELOOP_BENCH_AUTONOMY_CREATES ?? 1_000);
const BLOCKS = Number(process.env.EDGELOOP_BENCH_AUTONOMY_BLOCKS ?? 4);
const WARM_UP = Number(process.env.EDGELOOP_BENCH_AUTONOMY_WARM_UP ?? 50);
const EDGE_NODES = Array.from({ length: 10 }, (_, i) => `edge-${i + 1}`);
const CLOUD_NODES = Array.from({ length: 4 }, (_, i) => `cloud-${i + 1}`);
const NAMESPACE = "autonomy-bench";
const DURATION = "node.openyurt.io/autonomy-duration";
/** The seconds the edge nodes' 10m gives a pod's not-ready and unreachable tolerations. */
const SECONDS = 600;
const HOOK = `${podWebhookSpec.name}.edgeloop.dev`;
const OWN_CONFIGURATION = "edgeloop-autonomy-pods";
const CONCURRENCY = 32;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested spec and webhooks
type Mode = "with" | "without";

function podObject(name: string, nodeName?: string): KubeObject {
  const spec = { terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "10m", memory: "16Mi" } } }], ...(nodeName ? { nodeName } : {}) };
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NAMESPACE, labels: { app: "autonomy-bench" } }, spec } as KubeObject;
}

/** Whether the pod's not-ready and unreachable NoExecute tolerations carry the edge nodes' seconds (the webhook's patch). */
function patched(pod: KubeObject): boolean {
  const tolerations = (((pod as Obj).spec?.tolerations ?? []) as Obj[]).filter((t) => t.effect === "NoExecute" && t.tolerationSeconds === SECONDS);
  return ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"].every((key) => tolerations.some((t) => t.key === key));
}

/** Creates pods over HTTPS on one kept-alive connection, timed until the answer's last byte. */
interface TimedClient {
  create(pod: KubeObject): Promise<number>;
  close(): void;
}

async function timedClient(kubeconfigPath: string): Promise<TimedClient> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const options: { ca?: unknown; cert?: unknown; key?: unknown; headers?: Record<string, string> } = {};
  await kc.applyToHTTPSOptions(options as Parameters<KubeConfig["applyToHTTPSOptions"]>[0]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ...(options as object) });
  const url = new URL(`${kc.getCurrentCluster()?.server ?? ""}/api/v1/namespaces/${NAMESPACE}/pods`);
  return {
    create: (pod) =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify(pod);
        const started = performance.now();
        const req = request(url, { method: "POST", agent, headers: { ...options.headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => (res.statusCode === 201 ? resolve(performance.now() - started) : reject(new Error(`create answered ${res.statusCode ?? 0}: ${Buffer.concat(chunks).toString("utf8").slice(0, 300)}`))));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

/** Moves the webhook's entry into a configuration of its own (registered); returns it. */
async function ownConfiguration(cluster: BenchCluster): Promise<KubeObject> {
  const entriesOf = (configuration: KubeObject): Obj[] => ((configuration as Obj).webhooks ?? []) as Obj[];
  const shared = (await cluster.list(MUTATING)).items.find((configuration) => entriesOf(configuration).some((w) => w.name === HOOK));
  if (shared === undefined) throw new Error(`no MutatingWebhookConfiguration holds ${HOOK}: were the webhooks registered (startOnCluster's admission front)?`);
  const own = { apiVersion: MUTATING.apiVersion, kind: MUTATING.kind, metadata: { name: OWN_CONFIGURATION }, webhooks: entriesOf(shared).filter((w) => w.name === HOOK) } as KubeObject;
  await cluster.create(own);
  const rest = entriesOf(shared).filter((w) => w.name !== HOOK);
  if (rest.length === 0) await cluster.delete(MUTATING, undefined, shared.metadata.name ?? "");
  else await cluster.update({ ...shared, webhooks: rest });
  return own;
}

let probes = 0;

/** Registers or deletes the webhook's configuration; resolves once a probe pod bound to an edge node shows the change. */
async function setWebhook(cluster: BenchCluster, own: KubeObject, mode: Mode): Promise<void> {
  const present = (await cluster.find(MUTATING, undefined, OWN_CONFIGURATION)) !== undefined;
  if (mode === "with" && !present) await cluster.create({ ...own, metadata: { name: OWN_CONFIGURATION } } as KubeObject);
  if (mode === "without" && present) await cluster.delete(MUTATING, undefined, OWN_CONFIGURATION);
  await waitFor(
    `kube-apiserver to call the webhook ${mode === "with" ? "again" : "no more"}`,
    async () => {
      const probe = await cluster.create(podObject(`probe-${probes++}`, EDGE_NODES[0]));
      await cluster.delete(POD, NAMESPACE, probe.metadata.name ?? "", { gracePeriodSeconds: 0 });
      return patched(probe) === (mode === "with");
    },
    (ok) => ok,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

async function deleteAll(bench: ClusterBench): Promise<void> {
  const pods = (await bench.cluster.list(POD, { namespace: NAMESPACE })).items;
  await inPool(pods, CONCURRENCY, (pod) => bench.cluster.delete(POD, NAMESPACE, pod.metadata.name ?? "", { gracePeriodSeconds: 0 }));
  await waitFor("the bench's pods gone", async () => (await bench.cluster.list(POD, { namespace: NAMESPACE })).items.length, (count) => count === 0, { timeoutMs: WAIT_MS, intervalMs: 100 });
  await relayIdle(bench.relay.metrics, WAIT_MS);
}

async function block(client: TimedClient, prefix: string, count: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) ms.push(await client.create(podObject(`${prefix}-${i}`)));
  return ms;
}

/** The Pod webhook's added p99 for unbound pods created back to back, on a control plane of its own. */
export async function autonomy(report: Report, progress: Progress, script: string): Promise<void> {
  const bench = await clusterBench([...EDGE_NODES, ...CLOUD_NODES], script, progress, { extraControllerDirs: [] });
  const client = await timedClient(bench.stack.kubeconfigPath);
  try {
    const cluster = bench.cluster;
    await createNamespace(cluster, NAMESPACE);
    for (const name of EDGE_NODES) await cluster.patch(NODE, undefined, name, { metadata: { labels: { "openyurt.io/is-edge-worker": "true" }, annotations: { [DURATION]: "10m" } } }, "merge");
    const own = await ownConfiguration(cluster);
    await relayIdle(bench.relay.metrics, WAIT_MS);
    progress(`autonomy: warming up, ${WARM_UP} creates each way`);
    for (const mode of ["with", "without"] as const) {
      await setWebhook(cluster, own, mode);
      await block(client, `warm-${mode}`, WARM_UP);
      await deleteAll(bench);
    }
    const latencies: Record<Mode, number[]> = { with: [], without: [] };
    for (let b = 0; b < BLOCKS; b++) {
      for (const mode of b % 2 === 0 ? (["with", "without"] as const) : (["without", "with"] as const)) {
        await setWebhook(cluster, own, mode);
        await deleteAll(bench);
        const ms = await block(client, `${mode}-${b}`, Math.ceil(CREATES / BLOCKS));
        const sorted = [...ms].sort((x, y) => x - y);
        progress(`autonomy: block ${b + 1}/${BLOCKS} ${mode} the webhook: p50 ${tenth(percentile(sorted, 50))} ms, p99 ${tenth(percentile(sorted, 99))} ms`);
        latencies[mode].push(...ms);
        await deleteAll(bench);
      }
    }
    const sorted = { with: latencies.with.sort((x, y) => x - y), without: latencies.without.sort((x, y) => x - y) };
    for (const mode of ["with", "without"] as const) {
      report({ metric: `autonomy_pod_create_unbound_${mode}_webhook_p50_ms`, value: tenth(percentile(sorted[mode], 50)), unit: "ms" });
      report({ metric: `autonomy_pod_create_unbound_${mode}_webhook_p99_ms`, value: tenth(percentile(sorted[mode], 99)), unit: "ms" });
    }
    report({ metric: "autonomy_pod_webhook_added_p99_ms", value: tenth(percentile(sorted.with, 99) - percentile(sorted.without, 99)), unit: "ms", target: "<= 5" });
  } finally {
    client.close();
    await bench.stop();
  }
}
