/**
 * The nodes of the real control plane, and their kubelets. Each Node is played by a kwok
 * process of its own (`--manage-single-node`), which renews its Lease and moves its pods
 * through the Stages of kwok-stages.yaml. A Node annotated
 * `sim.edgeloop.dev/heartbeat=stopped` (the sim's convention) has its kwok stopped, as a
 * dead kubelet: no Lease renewal, so the real node-lifecycle controller marks it NotReady
 * and taints it; its pods are left as they are. Removing the annotation starts it again.
 * One process per node, because kwok decides which nodes it manages once, when it first
 * sees them: a later change of a node's annotations never stops it.
 */
import { CoordinationV1Api, CoreV1Api, makeInformer, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Node } from "@kubernetes/client-node";
import { join } from "node:path";
import { logTail, startProcess, type Managed } from "./process.ts";

/** The sim's annotation (sim/controllers/nodes.ts): `stopped` stops a node's heartbeat. */
export const HEARTBEAT_ANNOTATION = "sim.edgeloop.dev/heartbeat";

/** A node as `npm run cluster` creates it: the sim's labels and capacity, marked as kwok's. */
export function nodeObject(name: string): V1Node {
  const capacity = { cpu: "8", memory: "32Gi", pods: "110", "ephemeral-storage": "100Gi" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": "kwok", type: "kwok" },
      annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
    },
    // A kubelet registers its node with its capacity; kwok's node-initialize keeps it.
    status: { capacity, allocatable: capacity },
  };
}

/** Whether the node's kubelet should run. */
export function heartbeating(node: V1Node): boolean {
  return node.metadata?.annotations?.[HEARTBEAT_ANNOTATION] !== "stopped" && !node.metadata?.deletionTimestamp;
}

/** How the node agent runs kwok. */
export interface NodeAgentOptions {
  readonly kubeconfig: KubeConfig;
  readonly kwokBinary: string;
  /** The kubeconfig file kwok authenticates with. */
  readonly kwokKubeconfigFile: string;
  readonly stagesFile: string;
  readonly logDir: string;
  /** Seconds a node Lease lasts (renewed at a quarter of it, as a kubelet). */
  readonly leaseSeconds: number;
  readonly onStart?: (process: Managed) => void;
  readonly onStop?: (process: Managed) => void;
  readonly log?: (message: string) => void;
}

/** Keeps one kwok per heartbeating node, following the Nodes as they change. */
export class NodeAgent {
  readonly #kwoks = new Map<string, Managed>();
  readonly #indexes = new Map<string, number>();
  readonly #starting = new Set<string>();
  readonly #informer;
  #stopped = false;
  private readonly options: NodeAgentOptions;

  constructor(options: NodeAgentOptions) {
    this.options = options;
    const api = options.kubeconfig.makeApiClient(CoreV1Api);
    this.#informer = makeInformer<V1Node>(options.kubeconfig, "/api/v1/nodes", () => api.listNode());
    this.#informer.on("add", (node) => this.#sync(node));
    this.#informer.on("update", (node) => this.#sync(node));
    this.#informer.on("delete", (node) => void this.#stopKwok(node.metadata?.name ?? ""));
    this.#informer.on("error", () => {
      // The informer ends on an error (an API server restart): list and watch again.
      if (!this.#stopped) setTimeout(() => void this.#informer.start().catch(() => undefined), 1_000);
    });
  }

  /** Creates the `names` that do not exist yet, then follows every Node. */
  async start(names: readonly string[]): Promise<void> {
    const api = this.options.kubeconfig.makeApiClient(CoreV1Api);
    const existing = new Set((await api.listNode()).items.map((n) => n.metadata?.name));
    for (const name of names) if (!existing.has(name)) await api.createNode({ body: nodeObject(name) });
    await this.#informer.start();
  }

  /** The nodes whose kubelet runs now. */
  running(): string[] {
    return [...this.#kwoks.keys()].sort();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#informer.stop();
    await Promise.all([...this.#kwoks.keys()].map((name) => this.#stopKwok(name)));
  }

  #sync(node: V1Node): void {
    const name = node.metadata?.name;
    if (!name || this.#stopped) return;
    if (heartbeating(node)) this.#startKwok(name);
    else void this.#stopKwok(name);
  }

  #startKwok(name: string): void {
    const running = this.#kwoks.get(name);
    if (running && !running.ended()) return;
    if (this.#starting.has(name)) return;
    this.#starting.add(name);
    void this.#releaseLease(name)
      .then(() => {
        if (!this.#stopped) this.#spawnKwok(name);
      })
      .finally(() => this.#starting.delete(name));
  }

  /**
   * A kubelet renews its node's Lease under the node's name, so a restarted one renews at
   * once; each kwok process holds it under a random identity instead, and a new one would
   * wait for the old holder's Lease to expire (40 s) before it renews. Clearing the holder
   * first gives a restarted kubelet's behaviour.
   */
  async #releaseLease(name: string): Promise<void> {
    const api = this.options.kubeconfig.makeApiClient(CoordinationV1Api);
    try {
      await api.patchNamespacedLease({ name, namespace: "kube-node-lease", body: { spec: { holderIdentity: null } } }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
    } catch (error) {
      if ((error as { code?: number }).code !== 404) this.options.log?.(`could not release the Lease of node ${name}: ${(error as Error).message}`);
    }
  }

  #spawnKwok(name: string): void {
    const index = this.#indexOf(name);
    const o = this.options;
    const kwok = startProcess({
      name: `kwok ${name}`,
      binary: o.kwokBinary,
      logFile: join(o.logDir, `kwok-${name}.log`),
      args: [
        "--kubeconfig", o.kwokKubeconfigFile,
        "--manage-single-node", name,
        "--node-lease-duration-seconds", String(o.leaseSeconds),
        "--config", o.stagesFile,
        // Addresses are only written into statuses (no traffic goes to them): unique per node.
        "--cidr", `10.${244 + Math.floor(index / 256)}.${index % 256}.0/24`,
        "--node-ip", `10.88.${Math.floor(index / 250)}.${(index % 250) + 1}`,
      ],
    });
    this.#kwoks.set(name, kwok);
    // A kubelet that dies is restarted, as systemd would: after a second, unless it was stopped on purpose.
    void kwok.exited.then((how) => {
      if (this.#stopped || this.#kwoks.get(name) !== kwok) return;
      this.#kwoks.delete(name);
      o.onStop?.(kwok);
      o.log?.(`kubelet of node ${name} ended (${how}); starting it again in 1 s; log: ${kwok.logFile}\n${logTail(kwok.logFile, 3)}`);
      setTimeout(() => {
        const node = this.#informer.get(name);
        if (node) this.#sync(node);
      }, 1_000);
    });
    o.onStart?.(kwok);
    o.log?.(`kubelet of node ${name} started (kwok pid ${kwok.pid})`);
  }

  async #stopKwok(name: string): Promise<void> {
    const kwok = this.#kwoks.get(name);
    if (!kwok) return;
    this.#kwoks.delete(name);
    await kwok.stop(2_000);
    this.options.onStop?.(kwok);
    this.options.log?.(`kubelet of node ${name} stopped`);
  }

  #indexOf(name: string): number {
    const known = this.#indexes.get(name);
    if (known !== undefined) return known;
    const index = this.#indexes.size;
    this.#indexes.set(name, index);
    return index;
  }
}
