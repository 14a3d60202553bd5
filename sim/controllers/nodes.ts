/**
 * Simulated nodes: `sim-node-1..N` (or the names given) created at start, with GPUs
 * (`nvidia.com/gpu`) when asked, each heartbeating (Ready condition
 * and its Lease in kube-node-lease) unless annotated `sim.edgeloop.dev/heartbeat: stopped`.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, SimController, SimControllerOptions } from "../contract.ts";
import { arr, ignoreNotFound, now, obj, type Obj } from "./runtime.ts";

export const HEARTBEAT_ANNOTATION = "sim.edgeloop.dev/heartbeat";
const NODE = { apiVersion: "v1", kind: "Node" };
const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };

/** The extended resource a GPU device plugin advertises. */
export const GPU_RESOURCE = "nvidia.com/gpu";

/** A fresh simulated node; `gpus` > 0 adds that many `nvidia.com/gpu`, as the NVIDIA device plugin would. */
export function simNode(name: string, gpus = 0): KubeObject {
  const capacity = { cpu: "8", memory: "32Gi", pods: "110", "ephemeral-storage": "100Gi", ...(gpus > 0 ? { [GPU_RESOURCE]: String(gpus) } : {}) };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": "sim" } },
    spec: {},
    status: {
      capacity,
      allocatable: capacity,
      conditions: [readyCondition("True", now())],
      addresses: [{ type: "Hostname", address: name }],
      nodeInfo: { kubeletVersion: "v1.32.0-sim", containerRuntimeVersion: "sim://1.0", operatingSystem: "linux", architecture: "amd64", osImage: "edgeloop sim", kernelVersion: "sim", kubeProxyVersion: "", machineID: name, systemUUID: name, bootID: name },
    },
  } as KubeObject;
}

/** The Ready condition as a kubelet reports it. */
export function readyCondition(status: "True" | "False" | "Unknown", heartbeat: string, transition = heartbeat): Obj {
  const healthy = status === "True";
  return {
    type: "Ready",
    status,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: transition,
    reason: healthy ? "KubeletReady" : status === "Unknown" ? "NodeStatusUnknown" : "KubeletNotReady",
    message: healthy ? "kubelet is posting ready status" : "Kubelet stopped posting node status.",
  };
}

/** Whether the node's kubelet is (simulated as) running. */
export function heartbeating(node: KubeObject): boolean {
  return node.metadata.annotations?.[HEARTBEAT_ANNOTATION] !== "stopped";
}

/** The names of the nodes to create: `sim-node-1..N` for a count. */
export function nodeNames(nodes: number | readonly string[]): readonly string[] {
  return typeof nodes === "number" ? Array.from({ length: nodes }, (_, i) => `sim-node-${i + 1}`) : nodes;
}

/** Node creation and heartbeats. */
export function nodeHeartbeats(options: SimControllerOptions): SimController {
  let timer: ReturnType<typeof setInterval> | undefined;
  let busy = false;

  async function beat(cluster: Cluster): Promise<void> {
    if (busy) return;
    busy = true;
    try {
      const stamp = now();
      for (const node of (await cluster.list(NODE)).items) {
        if (!heartbeating(node)) continue;
        const conditions = arr(obj((node as Obj).status).conditions);
        const ready = conditions.find((c) => c.type === "Ready");
        const transition = ready?.status === "True" ? String(ready.lastTransitionTime ?? stamp) : stamp;
        const others = conditions.filter((c) => c.type !== "Ready");
        await ignoreNotFound(cluster.patch(NODE, undefined, node.metadata.name ?? "", { status: { conditions: [...others, readyCondition("True", stamp, transition)] } }, "merge", { subresource: "status" }));
        await renewLease(cluster, node.metadata.name ?? "", stamp);
      }
    } finally {
      busy = false;
    }
  }

  return {
    name: "node-heartbeats",
    start(cluster: Cluster): void {
      void (async (): Promise<void> => {
        for (const name of nodeNames(options.nodes)) {
          if (!(await cluster.find(NODE, undefined, name))) await cluster.create(simNode(name, options.nodeGpus ?? 0)).catch(() => undefined);
        }
      })();
      timer = setInterval(() => void beat(cluster).catch(() => undefined), options.heartbeatSeconds * 1000);
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
    },
  };
}

async function renewLease(cluster: Cluster, node: string, stamp: string): Promise<void> {
  const renewTime = `${stamp.slice(0, 19)}.000000Z`;
  const lease = await cluster.find(LEASE, "kube-node-lease", node);
  if (lease) {
    await ignoreNotFound(cluster.patch(LEASE, "kube-node-lease", node, { spec: { renewTime } }, "merge"));
    return;
  }
  await cluster.create({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: node, namespace: "kube-node-lease" }, spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime } } as KubeObject).catch(() => undefined);
}
