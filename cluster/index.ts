/**
 * A real Kubernetes control plane on loopback, without containers: etcd,
 * kube-apiserver (RBAC and Node authorizers, the default admission plugins and
 * NodeRestriction, an audit log), kube-controller-manager (its default controllers,
 * service-account tokens), kube-scheduler, and a kwok per node for the kubelets. Every
 * binary is built from pinned Go modules (versions.ts) and cached; certificates, etcd's
 * data and the logs live in the state folder, kept across restarts.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { freePort } from "../cli/ports.ts";
import { waitFor } from "../cli/wait.ts";
import { ensureToolchain, type Toolchain } from "./build.ts";
import { kubeconfigYaml } from "./kubeconfig.ts";
import { NodeAgent } from "./nodes.ts";
import { createPki, type ClusterPki } from "./pki.ts";
import { healthy, PidFile, startProcess, waitUntil, type Managed, type ProcessSpec } from "./process.ts";
import { KUBERNETES } from "./versions.ts";

/** The in-cluster address of the `kubernetes` Service (first of the service range). */
const SERVICE_RANGE = "10.96.0.0/16";
const SERVICE_IP = "10.96.0.1";
const STAGES_FILE = join(import.meta.dirname, "kwok-stages.yaml");
const AUDIT_POLICY_FILE = join(import.meta.dirname, "audit-policy.yaml");

/**
 * On by default: the release's native gang-scheduling API (KEP-4671, alpha in 1.36:
 * `scheduling.k8s.io/v1alpha2` Workload and PodGroup, a pod's `spec.schedulingGroup`) and
 * kube-scheduler's gang plugin. kube-scheduler only acts on pods whose `schedulerName` is
 * its own, so pods of another scheduler are untouched by it.
 */
export const DEFAULT_FEATURE_GATES: Readonly<Record<string, boolean>> = { GenericWorkload: true, GangScheduling: true };
/** The alpha API group version the gates above serve. */
export const DEFAULT_RUNTIME_CONFIG: Readonly<Record<string, boolean>> = { "scheduling.k8s.io/v1alpha2": true };

/** `--feature-gates=A=true,B=false`. */
function gatesArg(gates: Readonly<Record<string, boolean>>): string[] {
  const entries = Object.entries(gates).sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length === 0 ? [] : [`--feature-gates=${entries.map(([k, v]) => `${k}=${String(v)}`).join(",")}`];
}

/** How to start the control plane. */
export interface ControlPlaneOptions {
  /** Certificates, etcd's data, kubeconfigs, logs and the audit log. */
  readonly stateDir: string;
  /** kube-apiserver's port on 127.0.0.1 (0 picks a free one). */
  readonly port: number;
  /** Nodes created if missing. */
  readonly nodes: readonly string[];
  /** Where the built binaries are cached. */
  readonly cacheDir: string;
  /** Seconds without a Lease renewal before a node is NotReady (kube-controller-manager's node-monitor-grace-period; the sim's default, 40). */
  readonly nodeGraceSeconds?: number;
  /** Start empty: discard etcd's data, the certificates and the logs. */
  readonly fresh?: boolean;
  /**
   * Feature gates for kube-apiserver, kube-controller-manager and kube-scheduler, over
   * {@link DEFAULT_FEATURE_GATES} (the release's gang-scheduling API, KEP-4671, is on unless
   * turned off here).
   */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** kube-apiserver `--runtime-config` entries, over {@link DEFAULT_RUNTIME_CONFIG}. */
  readonly runtimeConfig?: Readonly<Record<string, boolean>>;
  /** Replaces kube-scheduler: another binary (a peer scheduler built elsewhere) and the arguments added to the usual ones. */
  readonly scheduler?: { readonly binary: string; readonly extraArgs?: readonly string[] };
  readonly go?: string;
  /** The environment the Go build runs with (the entry point's). */
  readonly env: NodeJS.ProcessEnv;
  /** Aborting it mid-start stops what was started and rejects (Ctrl-C while starting). */
  readonly signal?: AbortSignal;
  /** A line per step (building, starting each component). */
  readonly progress?: (line: string) => void;
}

/** A running control plane. */
export interface RunningControlPlane {
  /** `https://127.0.0.1:P`. */
  readonly url: string;
  readonly port: number;
  /** The admin kubeconfig (`system:masters`). */
  readonly kubeconfigPath: string;
  readonly caPem: string;
  /** The API server's audit log (JSON lines, metadata of every request but the components'). */
  readonly auditLogPath: string;
  readonly toolchain: Toolchain;
  readonly version: string;
  /** The nodes whose kubelet (kwok) runs. */
  runningNodes(): string[];
  /** Stops kube-apiserver and starts it again on the same port; resolves once it is ready. */
  restartApiServer(): Promise<void>;
  /**
   * Compacts etcd up to its current revision and returns it. Open watches go on (the API
   * server serves them from its watch cache); a watch or list that starts again from a
   * resourceVersion before it gets `410 Gone` — after {@link restartApiServer}, every one.
   */
  compactEtcd(): Promise<number>;
  /** Stops every process it started. */
  stop(): Promise<void>;
}

interface Layout {
  readonly pki: string;
  readonly etcd: string;
  readonly logs: string;
  readonly components: string;
  readonly kubeconfig: string;
  readonly audit: string;
  readonly pids: string;
}

function layoutOf(dir: string): Layout {
  return { pki: join(dir, "pki"), etcd: join(dir, "etcd"), logs: join(dir, "logs"), components: join(dir, "components"), kubeconfig: join(dir, "kubeconfig"), audit: join(dir, "audit.log"), pids: join(dir, "pids.json") };
}

/** Builds (once), then starts every component; resolves when the API server is ready and every node Ready. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<RunningControlPlane> {
  const progress = options.progress ?? ((): void => undefined);
  const toolchain = await ensureToolchain({ cacheDir: options.cacheDir, env: options.env, progress, ...(options.go ? { go: options.go } : {}) });
  const layout = layoutOf(options.stateDir);
  mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
  const pids = new PidFile(layout.pids);
  // A replacement scheduler's binary lives in a cache folder of its own: its leftovers are ended too.
  const leftovers = pids.endLeftovers([toolchain.binDir, ...(options.scheduler ? [dirname(options.scheduler.binary)] : [])]);
  if (leftovers > 0) progress(`ended ${leftovers} process(es) a previous run left behind`);
  if (options.fresh) for (const dir of [layout.etcd, layout.pki, layout.logs, layout.components]) rmSync(dir, { recursive: true, force: true });
  for (const dir of [layout.pki, layout.logs, layout.components]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pki = await loadOrCreatePki(layout.pki);
  const files = writePki(layout.pki, pki);

  const port = options.port || (await freePort());
  const url = `https://127.0.0.1:${port}`;
  const kubeconfigs = writeKubeconfigs(layout, url, pki);
  const started: Managed[] = [];
  const run = (spec: Omit<ProcessSpec, "logFile">): Managed => {
    const process = startProcess({ ...spec, logFile: join(layout.logs, `${spec.name}.log`) });
    started.push(process);
    pids.add(process.pid);
    return process;
  };
  const stopAll = async (): Promise<void> => {
    for (const process of [...started].reverse()) {
      await process.stop();
      pids.remove(process.pid);
    }
    started.length = 0;
  };

  let agent: NodeAgent | undefined;
  const aborted = (): void => {
    void agent?.stop();
    void stopAll();
  };
  options.signal?.addEventListener("abort", aborted, { once: true });
  const check = (what: string): void => {
    if (options.signal?.aborted) throw new Error(`stopped while ${what}`);
  };
  try {
    const etcdPort = await freePort();
    const etcdPeerPort = await freePort();
    progress(`starting etcd (127.0.0.1:${etcdPort})`);
    const etcd = run({ name: "etcd", binary: toolchain.bin("etcd"), args: etcdArgs(layout.etcd, etcdPort, etcdPeerPort) });
    await waitUntil(etcd, "healthy", () => etcdHealthy(etcdPort));
    check("starting etcd");

    const gates = gatesArg({ ...DEFAULT_FEATURE_GATES, ...options.featureGates });
    const runtimeConfig = Object.entries({ ...DEFAULT_RUNTIME_CONFIG, ...options.runtimeConfig }).map(([k, v]) => `${k}=${String(v)}`);
    const apiServerArgList = [...apiServerArgs({ port, etcdPort, files, auditLog: layout.audit }), ...gates, ...(runtimeConfig.length > 0 ? [`--runtime-config=${runtimeConfig.join(",")}`] : [])];
    const apiServerSpec = { name: "kube-apiserver", binary: toolchain.bin("kube-apiserver"), args: apiServerArgList };
    progress(`starting kube-apiserver ${KUBERNETES.version} (${url})`);
    let apiServer = run(apiServerSpec);
    await waitUntil(apiServer, "ready", () => healthy(port, "/readyz", pki.ca.certPem), 120_000);
    check("starting kube-apiserver");

    const grace = options.nodeGraceSeconds ?? 40;
    for (const [name, args] of [
      ["kube-controller-manager", [...controllerManagerArgs(kubeconfigs["kube-controller-manager"] ?? "", files, await freePort(), grace), ...gates]],
      ["kube-scheduler", [...schedulerArgs(kubeconfigs["kube-scheduler"] ?? "", await freePort()), ...(options.scheduler === undefined ? gates : (options.scheduler.extraArgs ?? []))]],
    ] as const) {
      progress(`starting ${name}`);
      const binary = name === "kube-scheduler" && options.scheduler !== undefined ? options.scheduler.binary : toolchain.bin(name);
      const process = run({ name, binary, args });
      const healthPort = Number(args[args.indexOf("--secure-port") + 1]);
      await waitUntil(process, "healthy", () => healthy(healthPort, "/healthz"));
      check(`starting ${name}`);
    }

    const kc = new KubeConfig();
    kc.loadFromFile(layout.kubeconfig);
    agent = new NodeAgent({
      kubeconfig: kc,
      kwokBinary: toolchain.bin("kwok"),
      kwokKubeconfigFile: kubeconfigs.kwok ?? "",
      stagesFile: STAGES_FILE,
      logDir: layout.logs,
      // Renewed every quarter of it, as a kubelet: 10 s, the sim's heartbeat.
      leaseSeconds: grace,
      log: progress,
      onStart: (p) => pids.add(p.pid),
      onStop: (p) => pids.remove(p.pid),
    });
    progress(`starting the kubelets (kwok) of ${options.nodes.length} node(s): ${options.nodes.join(", ")}`);
    await agent.start(options.nodes);
    await waitForReadyNodes(kc, options.nodes, options.signal);
    // Until the ServiceAccount controller makes it, the ServiceAccount admission plugin refuses every pod in `default`.
    await waitForDefaultServiceAccount(kc, options.signal);
    options.signal?.removeEventListener("abort", aborted);

    const running = agent;
    return {
      url,
      port,
      kubeconfigPath: layout.kubeconfig,
      caPem: pki.ca.certPem,
      auditLogPath: layout.audit,
      toolchain,
      version: KUBERNETES.version,
      runningNodes: () => running.running(),
      async restartApiServer(): Promise<void> {
        await apiServer.stop();
        pids.remove(apiServer.pid);
        started.splice(started.indexOf(apiServer), 1);
        apiServer = run(apiServerSpec);
        await waitUntil(apiServer, "ready", () => healthy(port, "/readyz", pki.ca.certPem), 120_000);
      },
      compactEtcd: () => compactEtcd(etcdPort),
      async stop(): Promise<void> {
        await running.stop();
        await stopAll();
      },
    };
  } catch (error) {
    await agent?.stop().catch(() => undefined);
    await stopAll();
    throw error;
  }
}

function etcdArgs(dataDir: string, port: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${port}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return ["--name", "edgeloop", "--data-dir", dataDir, "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", `edgeloop=${peer}`, "--log-level", "warn"];
}

interface PkiFiles {
  readonly caCert: string;
  readonly caKey: string;
  readonly apiServerCert: string;
  readonly apiServerKey: string;
  readonly saKey: string;
  readonly saPub: string;
}

function apiServerArgs(o: { port: number; etcdPort: number; files: PkiFiles; auditLog: string }): string[] {
  return [
    "--bind-address", "127.0.0.1",
    "--secure-port", String(o.port),
    "--advertise-address", "127.0.0.1",
    // The `kubernetes` Service's Endpoints would name 127.0.0.1, which Endpoints validation refuses: no reconciler.
    "--endpoint-reconciler-type", "none",
    "--etcd-servers", `http://127.0.0.1:${o.etcdPort}`,
    "--tls-cert-file", o.files.apiServerCert,
    "--tls-private-key-file", o.files.apiServerKey,
    "--client-ca-file", o.files.caCert,
    "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
    "--service-account-key-file", o.files.saPub,
    "--service-account-signing-key-file", o.files.saKey,
    "--service-cluster-ip-range", SERVICE_RANGE,
    "--authorization-mode", "Node,RBAC",
    "--enable-admission-plugins", "NodeRestriction",
    "--audit-policy-file", AUDIT_POLICY_FILE,
    "--audit-log-path", o.auditLog,
    "--audit-log-format", "json",
    "--audit-log-maxsize", "0",
    "--allow-privileged=true",
  ];
}

function controllerManagerArgs(kubeconfig: string, files: PkiFiles, port: number, graceSeconds: number): string[] {
  return [
    "--kubeconfig", kubeconfig,
    "--authentication-kubeconfig", kubeconfig,
    "--authorization-kubeconfig", kubeconfig,
    "--bind-address", "127.0.0.1",
    "--secure-port", String(port),
    "--leader-elect=false",
    "--use-service-account-credentials=true",
    "--service-account-private-key-file", files.saKey,
    "--root-ca-file", files.caCert,
    "--cluster-signing-cert-file", files.caCert,
    "--cluster-signing-key-file", files.caKey,
    "--node-monitor-grace-period", `${graceSeconds}s`,
    "--node-monitor-period", "5s",
  ];
}

function schedulerArgs(kubeconfig: string, port: number): string[] {
  return ["--kubeconfig", kubeconfig, "--authentication-kubeconfig", kubeconfig, "--authorization-kubeconfig", kubeconfig, "--bind-address", "127.0.0.1", "--secure-port", String(port), "--leader-elect=false"];
}

async function loadOrCreatePki(dir: string): Promise<ClusterPki> {
  const file = join(dir, "pki.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as ClusterPki;
  const pki = await createPki(SERVICE_IP);
  writeFileSync(file, JSON.stringify(pki), { mode: 0o600 });
  return pki;
}

function writePki(dir: string, pki: ClusterPki): PkiFiles {
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  return {
    caCert: write("ca.crt", pki.ca.certPem),
    caKey: write("ca.key", pki.ca.keyPem),
    apiServerCert: write("apiserver.crt", pki.apiServer.certPem),
    apiServerKey: write("apiserver.key", pki.apiServer.keyPem),
    saKey: write("sa.key", pki.serviceAccount.keyPem),
    saPub: write("sa.pub", pki.serviceAccount.publicPem),
  };
}

/** The admin kubeconfig at `DIR/kubeconfig`, one per component in `DIR/components/`. */
function writeKubeconfigs(layout: Layout, url: string, pki: ClusterPki): Record<string, string> {
  const paths: Record<string, string> = {};
  for (const [name, cert] of Object.entries(pki.clients)) {
    const path = name === "admin" ? layout.kubeconfig : join(layout.components, `${name}.kubeconfig`);
    writeFileSync(path, kubeconfigYaml(url, pki.ca.certPem, name, { cert }), { mode: 0o600 });
    paths[name] = path;
  }
  return paths;
}

async function etcdHealthy(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    return response.ok && ((await response.json()) as { health?: string }).health === "true";
  } catch {
    return false;
  }
}

/** Compaction through etcd's gRPC gateway (no etcdctl needed): the current revision, then compact to it. */
async function compactEtcd(port: number): Promise<number> {
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`etcd ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const range = await post("/v3/kv/range", { key: Buffer.from("/").toString("base64"), limit: 1 });
  const revision = Number((range.header as { revision?: string } | undefined)?.revision);
  if (!Number.isFinite(revision)) throw new Error("etcd did not say its revision");
  await post("/v3/kv/compaction", { revision: String(revision), physical: true });
  return revision;
}

async function waitForDefaultServiceAccount(kc: KubeConfig, signal: AbortSignal | undefined, timeoutMs = 60_000): Promise<void> {
  const api = kc.makeApiClient(CoreV1Api);
  const read = async (): Promise<"found" | "missing" | "aborted"> =>
    signal?.aborted
      ? "aborted"
      : api.readNamespacedServiceAccount({ name: "default", namespace: "default" }).then(
          () => "found",
          () => "missing",
        );
  await waitFor("the default ServiceAccount in namespace default (kube-controller-manager's log is in the state folder's logs/)", read, (state) => state !== "missing", { timeoutMs, intervalMs: 200 });
}

async function waitForReadyNodes(kc: KubeConfig, names: readonly string[], signal: AbortSignal | undefined, timeoutMs = 60_000): Promise<void> {
  const api = kc.makeApiClient(CoreV1Api);
  const notReady = async (): Promise<string[]> => {
    if (signal?.aborted) throw new Error(`nodes not Ready: stopped while waiting for ${names.join(", ")}`);
    const nodes = (await api.listNode()).items;
    return names.filter((name) => !nodes.find((n) => n.metadata?.name === name)?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
  };
  await waitFor("every node Ready (those not; kwok logs in the state folder's logs/)", notReady, (waiting) => waiting.length === 0, { timeoutMs, intervalMs: 250 });
}
