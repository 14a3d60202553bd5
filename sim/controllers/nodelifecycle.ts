/**
 * The node-lifecycle controller: a node whose heartbeat is older than the grace period
 * goes Ready=Unknown and gets the `node.kubernetes.io/unreachable` NoSchedule and
 * NoExecute taints; its pods turn not Ready; pods are evicted when their NoExecute
 * toleration runs out. A node that heartbeats again loses the taints.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, SimController, SimControllerOptions } from "../contract.ts";
import { readyCondition } from "./nodes.ts";
import { arr, ignoreNotFound, now, obj, terminal, type Obj } from "./runtime.ts";

const NODE = { apiVersion: "v1", kind: "Node" };
const POD = { apiVersion: "v1", kind: "Pod" };
export const UNREACHABLE = "node.kubernetes.io/unreachable";

/**
 * When a pod on a node tainted at `taintedAt` must go: now (no toleration), after its
 * tolerationSeconds, or never (tolerated without a limit). Epoch ms, or undefined for never.
 */
export function evictionTime(pod: KubeObject, taintedAt: number): number | undefined {
  const taint = { key: UNREACHABLE, effect: "NoExecute" };
  const matching = arr(obj((pod as Obj).spec).tolerations).filter(
    (t) => (!t.effect || t.effect === "NoExecute") && (t.operator === "Exists" ? !t.key || t.key === taint.key : t.key === taint.key),
  );
  if (matching.length === 0) return taintedAt;
  if (matching.some((t) => t.tolerationSeconds === undefined || t.tolerationSeconds === null)) return undefined;
  const seconds = Math.min(...matching.map((t) => Number(t.tolerationSeconds)));
  return taintedAt + Math.max(0, seconds) * 1000;
}

/** The node-lifecycle controller as a sim controller. */
export function nodeLifecycle(options: SimControllerOptions): SimController {
  let timer: ReturnType<typeof setInterval> | undefined;
  let busy = false;

  async function check(cluster: Cluster): Promise<void> {
    if (busy) return;
    busy = true;
    try {
      for (const node of (await cluster.list(NODE)).items) await checkNode(cluster, node);
    } finally {
      busy = false;
    }
  }

  async function checkNode(cluster: Cluster, node: KubeObject): Promise<void> {
    const name = node.metadata.name ?? "";
    const status = obj((node as Obj).status);
    const conditions = arr(status.conditions);
    const ready = conditions.find((c) => c.type === "Ready");
    const heartbeat = Date.parse(String(ready?.lastHeartbeatTime ?? node.metadata.creationTimestamp ?? ""));
    const stale = Date.now() - heartbeat > options.nodeGraceSeconds * 1000;
    const taints = arr(obj((node as Obj).spec).taints);
    const tainted = taints.some((t) => t.key === UNREACHABLE);
    if (stale && ready?.status !== "Unknown") {
      const others = conditions.filter((c) => c.type !== "Ready");
      await ignoreNotFound(cluster.patch(NODE, undefined, name, { status: { conditions: [...others, readyCondition("Unknown", String(ready?.lastHeartbeatTime ?? now()), now())] } }, "merge", { subresource: "status" }));
    }
    if (stale && !tainted) {
      const added = [{ key: UNREACHABLE, effect: "NoSchedule", timeAdded: now() }, { key: UNREACHABLE, effect: "NoExecute", timeAdded: now() }];
      await ignoreNotFound(cluster.patch(NODE, undefined, name, { spec: { taints: [...taints, ...added] } }, "merge"));
      await markPodsNotReady(cluster, name);
    }
    if (!stale && tainted) {
      const kept = taints.filter((t) => t.key !== UNREACHABLE);
      await ignoreNotFound(cluster.patch(NODE, undefined, name, { spec: { taints: kept.length ? kept : null } }, "merge"));
    }
    if (stale) await evict(cluster, name, taints.find((t) => t.key === UNREACHABLE && t.effect === "NoExecute"));
  }

  async function podsOn(cluster: Cluster, node: string): Promise<KubeObject[]> {
    return (await cluster.list(POD, { fieldSelector: `spec.nodeName=${node}` })).items.filter((p) => !terminal(p));
  }

  async function markPodsNotReady(cluster: Cluster, node: string): Promise<void> {
    for (const pod of await podsOn(cluster, node)) {
      const conditions = arr(obj((pod as Obj).status).conditions).map((c) => (c.type === "Ready" || c.type === "ContainersReady" ? { ...c, status: "False", reason: "NodeUnreachable", lastTransitionTime: now() } : c));
      await ignoreNotFound(cluster.patch(POD, pod.metadata.namespace, pod.metadata.name ?? "", { status: { conditions } }, "merge", { subresource: "status" }));
    }
  }

  async function evict(cluster: Cluster, node: string, taint: Obj | undefined): Promise<void> {
    const taintedAt = taint ? Date.parse(String(taint.timeAdded ?? "")) : Date.now();
    for (const pod of await podsOn(cluster, node)) {
      if (pod.metadata.deletionTimestamp) continue;
      const due = evictionTime(pod, Number.isFinite(taintedAt) ? taintedAt : Date.now());
      if (due !== undefined && Date.now() >= due) {
        // The kubelet is gone, so nobody would finish a graceful deletion: evict at once.
        await ignoreNotFound(cluster.delete(POD, pod.metadata.namespace, pod.metadata.name ?? "", { gracePeriodSeconds: 0 }));
      }
    }
  }

  return {
    name: "node-lifecycle",
    start(cluster: Cluster): void {
      const interval = Math.max(250, Math.min(5000, (options.nodeGraceSeconds * 1000) / 4));
      timer = setInterval(() => void check(cluster).catch(() => undefined), interval);
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
    },
  };
}
