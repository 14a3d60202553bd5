/**
 * Scale (issue 16 item 5): a relay process with every real controller, against a sim
 * holding 100,000 pods of a realistic shape (labels, a container with resources, env and
 * ports, a Running status with conditions), bound over 100 nodes: most plain, some in
 * gangs of the `fluxnetes` scheduler, some owned by Sedna FederatedLearningJobs.
 * Figures: how long the relay's informers take to sync (process start → `/readyz`; the
 * lists alone, from its log; its CPU time), and its RSS once synced, once idle (every
 * initial event delivered to the Worker), at its peak (VmHWM), with its V8 heap,
 * as the image runs it (see {@link VARIANTS}).
 *
 * The pods are created in-process, before the Worker and the relay start (so no admission
 * webhook is called and nothing reconciles meanwhile), with the sim's built-in
 * controllers off: the cluster is still, and what is measured is the relay process alone
 * (no relay runs in this process). The Worker then gets every initial event (the gang
 * queue every pod, autonomy a snapshot per node); how long it takes is reported, bounded.
 *
 * `node_modules/.bin/node test/bench/scale.bench.ts [--pods N]` runs it alone (as `npm run bench -- scale`).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "../../protocol/index.ts";
import type { Benchmark } from "../../scripts/bench.ts";
import { installCrds } from "../../scripts/lib/crds-install.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { startSim } from "../../sim/index.ts";
import { metricSum, relayBundle, relayIdle, relayProcess, stopChild, tenth } from "./util.ts";
import { freePort } from "../../cli/ports.ts";

const DEFAULT_PODS = 100_000;
const NODES = 100;
/** One pod in this many is in a gang; one in this many is a Sedna worker. */
const GANG_EVERY = 10;
const SEDNA_EVERY = 50;
const GANG_SIZE = 8;
const SEDNA_JOB_PODS = 4;
const NAMESPACES = 10;
/** How long the relay is given to deliver every initial event before RSS is read anyway. */
const IDLE_WAIT_S = 300;

const FL_API_VERSION = "sedna.io/v1alpha1";

function node(i: number): KubeObject {
  const now = new Date().toISOString();
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: `scale-node-${i}`, labels: { "kubernetes.io/hostname": `scale-node-${i}`, "topology.kubernetes.io/zone": `zone-${i % 3}` } },
    spec: {},
    status: {
      capacity: { cpu: "10000", memory: "10000Gi", pods: "5000" },
      allocatable: { cpu: "10000", memory: "10000Gi", pods: "5000" },
      conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: now, lastTransitionTime: now, reason: "KubeletReady", message: "kubelet is posting ready status" }],
    },
  } as KubeObject;
}

/** The pod `i`: its kind of owner decides labels, scheduler and ownerReferences (exported for memory experiments). */
export function pod(i: number): { object: KubeObject; status: Record<string, unknown> } {
  const namespace = `scale-${i % NAMESPACES}`;
  const labels: Record<string, string> = { app: `app-${i % 200}`, tier: i % 2 ? "web" : "worker", "pod-template-hash": `h${i % 1000}` };
  const spec: Record<string, unknown> = {
    nodeName: `scale-node-${i % NODES}`,
    containers: [
      {
        name: "main",
        image: `registry.example.com/team/app-${i % 200}:1.${i % 17}.0`,
        args: ["--port=8080", "--log-level=info"],
        env: [
          { name: "APP_NAME", value: `app-${i % 200}` },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "LOG_FORMAT", value: "json" },
        ],
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
        readinessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 10 },
      },
    ],
  };
  const metadata: Record<string, unknown> = { name: `pod-${i}`, namespace, labels, annotations: { "example.com/build": `b${i % 97}` } };
  if (i % GANG_EVERY === 0) {
    const group = Math.floor(i / GANG_EVERY / GANG_SIZE);
    labels["fluxnetes.group-name"] = `gang-${group}`;
    labels["fluxnetes.group-size"] = String(GANG_SIZE);
    spec["schedulerName"] = "fluxnetes";
  } else if (i % SEDNA_EVERY === 1) {
    // Workers of jobs that are not in the cluster: the relay caches and maps them all the same.
    const job = `fl-${Math.floor(i / SEDNA_EVERY / SEDNA_JOB_PODS)}`;
    const uid = `00000000-0000-4000-8000-${String(Math.floor(i / SEDNA_EVERY / SEDNA_JOB_PODS)).padStart(12, "0")}`;
    Object.assign(labels, { "federatedlearningjob.sedna.io/name": job, "federatedlearningjob.sedna.io/uid": uid, "federatedlearningjob.sedna.io/worker-type": "train" });
    metadata["ownerReferences"] = [{ apiVersion: FL_API_VERSION, kind: "FederatedLearningJob", name: job, uid, controller: true, blockOwnerDeletion: true }];
  }
  const started = new Date(Date.now() - 3_600_000).toISOString();
  const status = {
    phase: "Running",
    hostIP: `10.0.${i % NODES}.1`,
    podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    startTime: started,
    qosClass: "Burstable",
    conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: started })),
    containerStatuses: [{ name: "main", ready: true, started: true, restartCount: 0, image: `registry.example.com/team/app-${i % 200}:1.${i % 17}.0`, imageID: `registry.example.com/team/app@sha256:${String(i).padStart(64, "0")}`, containerID: `containerd://${String(i).padStart(64, "0")}`, state: { running: { startedAt: started } } }],
  };
  return { object: { apiVersion: "v1", kind: "Pod", metadata, spec } as KubeObject, status };
}

function procStatus(pid: number, field: "VmRSS" | "VmHWM"): number {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}


/** CPU time (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command; in clock ticks (100 a second on Linux).
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100;
}

/** How the relay process runs: as the image does, and with glibc's allocator told to give memory back. */
interface Variant {
  /** Appended to every figure's name. */
  readonly suffix: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The relay runs as its image runs it (RELAY_ENVIRONMENT: glibc's allocator capped at two
 * arenas, large blocks mmapped and returned on free, so the burst of list pages and
 * Worker bodies leaves RSS once the V8 heap shrinks). Before that setting it idled at
 * 427 MiB here (284 MiB after); a variant with other settings can be added here.
 */
const VARIANTS: readonly Variant[] = [{ suffix: "", env: {} }];

/** One relay process against the cluster: sync time, CPU, RSS synced, idle and at peak. */
async function oneRelay(report: Parameters<Benchmark["run"]>[0], progress: (m: string) => void, stack: Parameters<typeof relayProcess>[0], script: string, variant: Variant): Promise<void> {
  const name = (metric: string): string => `${metric}_100k_pods${variant.suffix}`;
  progress(`starting a relay process${variant.suffix ? ` (${Object.entries(variant.env).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}; waiting for /readyz (every informer synced)`);
  const saved = { ...process.env };
  // The child inherits this process's environment (relayProcess adds its own): set for the spawn only.
  Object.assign(process.env, variant.env);
  const started = performance.now();
  const relay = await relayProcess(stack, script, 900_000).finally(() => {
    for (const key of Object.keys(variant.env)) if (saved[key] === undefined) delete process.env[key];
    Object.assign(process.env, saved);
  });
  const syncSeconds = (performance.now() - started) / 1000;
  const pid = relay.child.pid ?? 0;
  try {
    report({ metric: name("informer_sync_seconds"), value: tenth(syncSeconds), unit: "s" });
    // Less noisy than the wall clock on a shared machine: what the relay itself spent.
    report({ metric: name("relay_cpu_seconds_to_sync"), value: tenth(cpuSeconds(pid)), unit: "s" });
    report({ metric: name("relay_rss_synced_mib"), value: tenth(procStatus(pid, "VmRSS")), unit: "MiB" });
    // The peak so far: the lists' share of the peak, apart from the initial deliveries' after it.
    report({ metric: name("relay_peak_rss_synced_mib"), value: tenth(procStatus(pid, "VmHWM")), unit: "MiB" });
    progress(`waiting up to ${IDLE_WAIT_S} s for the relay to be idle (every initial event delivered)`);
    const idleStart = performance.now();
    try {
      await relayIdle(relay.metrics, IDLE_WAIT_S * 1000);
      report({ metric: name("relay_idle_seconds"), value: tenth((performance.now() - idleStart) / 1000), unit: "s" });
    } catch (error) {
      // The Worker may not keep up (it is not what is measured here): say so and measure anyway.
      if (relay.child.exitCode !== null || relay.child.signalCode !== null) throw new Error(`the relay process exited (${relay.child.exitCode ?? relay.child.signalCode}); its log: ${relay.logFile}`, { cause: error });
      progress(`not idle after ${IDLE_WAIT_S} s (${error instanceof Error ? error.message : String(error)}); measuring anyway; relay log: ${relay.logFile}`);
    }
    report({ metric: name("relay_rss_mib"), value: tenth(procStatus(pid, "VmRSS")), unit: "MiB", target: "<= 400" });
    report({ metric: name("relay_peak_rss_mib"), value: tenth(procStatus(pid, "VmHWM")), unit: "MiB", target: "<= 400" });
    const metrics = await relay.metrics();
    report({ metric: name("relay_heap_used_mib"), value: tenth(metricSum(metrics, "nodejs_heap_size_used_bytes") / 1024 / 1024), unit: "MiB" });
    report({ metric: name("relay_heap_total_mib"), value: tenth(metricSum(metrics, "nodejs_heap_size_total_bytes") / 1024 / 1024), unit: "MiB" });
    report({ metric: name("relay_cached_objects"), value: metricSum(metrics, "edgeloop_cached_objects"), unit: "objects" });
  } finally {
    await stopChild(relay.child);
  }
}

async function measure(report: Parameters<Benchmark["run"]>[0], progress: (m: string) => void, pods: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-scale-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  const sim = await startSim({ port: 0, kubeconfigPath, controllers: false, historySize: 1_000 });
  let worker: RunningWorker | undefined;
  try {
    progress(`creating ${NODES} nodes and ${pods} pods in-process`);
    for (let i = 0; i < NODES; i++) await sim.cluster.create(node(i));
    for (let n = 0; n < NAMESPACES; n++) await sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: `scale-${n}` } } as KubeObject);
    const t0 = performance.now();
    for (let i = 0; i < pods; i++) {
      const { object, status } = pod(i);
      await sim.cluster.create(object);
      await sim.cluster.patch({ apiVersion: "v1", kind: "Pod" }, object.metadata.namespace, object.metadata.name ?? "", { status }, "merge", { subresource: "status" });
      if ((i + 1) % 20_000 === 0) progress(`  ${i + 1} pods (${Math.round((i + 1) / ((performance.now() - t0) / 1000))}/s)`);
    }
    // No in-process relay and no admission front: the pods exist already, and only the relay process is measured.
    progress("starting the Worker (every real controller) and installing the CRDs");
    const secret = randomBytes(24).toString("hex");
    const apiPort = await freePort();
    worker = await startWorker({ secret, apiAddress: `127.0.0.1:${apiPort}`, port: 0, extraControllerDirs: [], persistDir: join(dir, "do") });
    await installCrds(kubeconfigPath, []);
    // What the API server's paging alone costs (this process serves it, and lists it here too):
    // the part of the relay's sync time that is not the relay's.
    progress("listing every pod in pages of 500, as the relay's informer does");
    const listStart = performance.now();
    let token = "";
    do {
      const page = (await (await fetch(`${sim.url}/api/v1/pods?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ""}`)).json()) as { metadata?: { continue?: string } };
      token = page.metadata?.continue ?? "";
    } while (token);
    report({ metric: "sim_paged_list_seconds_100k_pods", value: tenth((performance.now() - listStart) / 1000), unit: "s" });
    const script = await relayBundle();
    const stack = { sim, worker, secret, front: undefined, apiUrl: `http://127.0.0.1:${apiPort}` };
    for (const variant of VARIANTS) await oneRelay(report, progress, stack, script, variant);
  } finally {
    await worker?.stop();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: "scale",
  async run(report, progress) {
    const at = process.argv.indexOf("--pods");
    const pods = at > 0 ? Number(process.argv[at + 1]) : Number(process.env.EDGELOOP_SCALE_PODS ?? DEFAULT_PODS);
    await measure(report, progress, pods);
  },
};
export default bench;

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--help")) {
    process.stdout.write("usage: node test/bench/scale.bench.ts [--help] [--pods N]\n\nRelay RSS and informer sync time with N pods (default 100,000) in the sim. JSON lines on stdout.\n");
  } else {
    await bench.run(
      (figure) => process.stdout.write(`${JSON.stringify({ bench: "scale", ...figure })}\n`),
      (message) => process.stderr.write(`${message}\n`),
    );
  }
}
