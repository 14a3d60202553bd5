/**
 * The node lifecycle controller (pkg/controller/nodelifecycle/node_lifecycle_controller.go,
 * v1.32), every few seconds as its `monitorNodeHealth`:
 *
 * - a node not heard from for the grace period (`--node-monitor-grace-period`; the sim's
 *   `nodeGraceSeconds`) gets its Ready condition, and the MemoryPressure, DiskPressure and
 *   PIDPressure it has, set Unknown (`NodeStatusUnknown`, "Kubelet stopped posting node
 *   status.") as `tryUpdateNodeHealth` does;
 * - when that turns Ready from True, a `NodeNotReady` Event and `MarkPodsNotReady`: each
 *   pod of the node gets its Ready condition (only that one) set False, reason and message
 *   kept, with a `NodeNotReady` Warning. A node a kubelet reports `Ready=False` itself is
 *   not marked so, as upstream (its kubelet reports its pods);
 * - taints, as `doNoScheduleTaintingPass` and `processTaintBaseEviction`: Ready=False gives
 *   `node.kubernetes.io/not-ready`, Unknown `node.kubernetes.io/unreachable`, each NoSchedule
 *   and NoExecute, swapped for each other when the condition moves between the two, removed
 *   when it is True again; the pressure conditions and `spec.unschedulable` give their
 *   NoSchedule taints. Added taints carry `timeAdded` (`SwapNodeControllerTaint`).
 *
 * Not modelled: the NoExecute taints are added at once, where upstream queues them per zone
 * at `--node-eviction-rate` (0.1 node/s) and a pass later than the condition; and the
 * disruption modes (no zone is ever "fully disrupted": upstream stops tainting, and
 * untaints, when every node of every zone is not Ready).
 *
 * Pods are evicted from the NoExecute taints by the taint eviction controller
 * (taint-eviction.ts); a kubelet heartbeating again (nodes.ts) reports its pods Ready again.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { NODE_CONTROLLER_USER } from "../../protocol/kube/controller-users.ts";
import type { Cluster, SimController, SimControllerOptions } from "../contract.ts";
import { recordEvent } from "./events.ts";
import { arr, ignoreNotFound, isNotFound, now, obj, type Obj } from "./runtime.ts";
import { DISK_PRESSURE, MEMORY_PRESSURE, NETWORK_UNAVAILABLE, NOT_READY, PID_PRESSURE, UNREACHABLE, UNSCHEDULABLE } from "./taints.ts";

const NODE = { apiVersion: "v1", kind: "Node" };
const POD = { apiVersion: "v1", kind: "Pod" };

/** `nodeConditionToTaintKeyStatusMap`: the NoSchedule taint of a condition in a status. */
const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: NOT_READY, Unknown: UNREACHABLE },
  MemoryPressure: { True: MEMORY_PRESSURE },
  DiskPressure: { True: DISK_PRESSURE },
  NetworkUnavailable: { True: NETWORK_UNAVAILABLE },
  PIDPressure: { True: PID_PRESSURE },
};
const MANAGED_NO_SCHEDULE = new Set([UNSCHEDULABLE, ...Object.values(CONDITION_TAINTS).flatMap((byStatus) => Object.values(byStatus))]);
/** The conditions set Unknown when the kubelet goes silent (not NetworkUnavailable, which the control plane owns). */
const SILENCED = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/** The node's Ready status (`Unknown` when it has none, as upstream's stand-in condition). */
function readyStatus(node: KubeObject): string {
  return String(arr(obj((node as Obj).status).conditions).find((c) => c.type === "Ready")?.status ?? "Unknown");
}

/**
 * `tryUpdateNodeHealth` past the grace period: the conditions as they become (Ready added
 * `NodeStatusNeverUpdated` when the kubelet never posted one), or undefined when they
 * already say Unknown.
 */
export function silencedConditions(node: KubeObject, at: string): Obj[] | undefined {
  const conditions = arr(obj((node as Obj).status).conditions);
  let changed = false;
  const next = conditions.map((c) => {
    if (!SILENCED.includes(String(c.type)) || c.status === "Unknown") return c;
    changed = true;
    return { ...c, status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: at };
  });
  if (!conditions.some((c) => c.type === "Ready")) {
    changed = true;
    next.push({ type: "Ready", status: "Unknown", reason: "NodeStatusNeverUpdated", message: "Kubelet never posted node status.", lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: at });
  }
  return changed ? next : undefined;
}

/** The node's taints as the controller leaves them, or undefined when they stay as they are. */
export function controllerTaints(node: KubeObject, at: string): Obj[] | undefined {
  const spec = obj((node as Obj).spec);
  let taints = arr(spec.taints);
  const has = (key: string, effect: string): boolean => taints.some((t) => t.key === key && t.effect === effect);
  const add = (key: string, effect: string): void => {
    if (!has(key, effect)) taints = [...taints, { key, effect, timeAdded: at }];
  };
  const remove = (key: string, effect: string): void => {
    taints = taints.filter((t) => !(t.key === key && t.effect === effect));
  };
  // doNoScheduleTaintingPass: the condition taints and the unschedulable one, by their key.
  const wanted = new Set(arr(obj((node as Obj).status).conditions).flatMap((c) => CONDITION_TAINTS[String(c.type)]?.[String(c.status)] ?? []));
  if (spec.unschedulable === true) wanted.add(UNSCHEDULABLE);
  for (const t of taints) if (t.effect === "NoSchedule" && MANAGED_NO_SCHEDULE.has(String(t.key)) && !wanted.has(String(t.key))) remove(String(t.key), "NoSchedule");
  for (const key of wanted) add(key, "NoSchedule");
  // processTaintBaseEviction: not-ready and unreachable NoExecute are exclusive; Ready removes both. A node
  // without a Ready condition is left until tryUpdateNodeHealth gives it one (monitorNodeHealth skips it).
  const ready = arr(obj((node as Obj).status).conditions).find((c) => c.type === "Ready")?.status;
  if (ready === "True") {
    remove(UNREACHABLE, "NoExecute");
    remove(NOT_READY, "NoExecute");
  } else if (ready !== undefined) {
    const [key, opposite] = ready === "False" ? [NOT_READY, UNREACHABLE] : [UNREACHABLE, NOT_READY];
    add(key, "NoExecute");
    remove(opposite, "NoExecute");
  }
  return JSON.stringify(taints) === JSON.stringify(arr(spec.taints)) ? undefined : taints;
}

/**
 * `MarkPodsNotReady` for one pod: its conditions with Ready set False (lastTransitionTime
 * now, reason and message kept, as `UpdatePodCondition`), or undefined when it has no
 * Ready condition or it is False already.
 */
export function notReadyConditions(pod: KubeObject, at: string): Obj[] | undefined {
  const conditions = arr(obj((pod as Obj).status).conditions);
  const ready = conditions.find((c) => c.type === "Ready");
  if (!ready || ready.status === "False") return undefined;
  return conditions.map((c) => (c === ready ? { ...c, status: "False", lastTransitionTime: at } : c));
}

/** The node-lifecycle controller as a sim controller. */
export function nodeLifecycle(options: SimControllerOptions): SimController {
  let timer: ReturnType<typeof setInterval> | undefined;
  let busy = false;
  /** Nodes whose pods could not all be marked not Ready (`nodesToRetry`). */
  const retry = new Set<string>();

  async function check(cluster: Cluster): Promise<void> {
    if (busy) return;
    busy = true;
    try {
      for (const node of (await cluster.list(NODE)).items) await checkNode(cluster, node).catch(() => undefined);
    } finally {
      busy = false;
    }
  }

  async function checkNode(cluster: Cluster, observed: KubeObject): Promise<void> {
    const name = observed.metadata.name ?? "";
    const ready = arr(obj((observed as Obj).status).conditions).find((c) => c.type === "Ready");
    const heartbeat = Date.parse(String(ready?.lastHeartbeatTime ?? observed.metadata.creationTimestamp ?? ""));
    const stale = Date.now() - heartbeat > options.nodeGraceSeconds * 1000;
    const conditions = stale ? silencedConditions(observed, now()) : undefined;
    const node = conditions ? await write(cluster, name, { metadata: { resourceVersion: observed.metadata.resourceVersion }, status: { conditions } }, "status") : observed;
    if (!node) return;
    const before = readyStatus(observed);
    const after = readyStatus(node);
    if (after !== "True" && before === "True") {
      await recordEvent(cluster, node, "Normal", "NodeNotReady", `Node ${name} status is now: NodeNotReady`, "node-controller");
      await markPodsNotReady(cluster, name);
    } else if (retry.has(name) && before !== "True") {
      await markPodsNotReady(cluster, name);
    } else {
      retry.delete(name);
    }
    const taints = controllerTaints(node, now());
    if (taints) await write(cluster, name, { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints: taints.length > 0 ? taints : null } });
  }

  /**
   * A node write from what was read (a 409 waits for the next pass); undefined when the
   * node is gone. Written as kube-controller-manager's node-lifecycle controller is (with
   * `--use-service-account-credentials`): a webhook may tell it apart and must not block it.
   */
  function write(cluster: Cluster, name: string, patch: Obj, subresource?: "status"): Promise<KubeObject | undefined> {
    return ignoreNotFound(cluster.patch(NODE, undefined, name, patch, "merge", { user: NODE_CONTROLLER_USER, ...(subresource ? { subresource } : {}) }));
  }

  async function markPodsNotReady(cluster: Cluster, node: string): Promise<void> {
    let failed = false;
    for (const pod of (await cluster.list(POD, { fieldSelector: `spec.nodeName=${node}` })).items) {
      const conditions = notReadyConditions(pod, now());
      if (!conditions) continue;
      try {
        await cluster.patch(POD, pod.metadata.namespace, pod.metadata.name ?? "", { metadata: { resourceVersion: pod.metadata.resourceVersion }, status: { conditions } }, "merge", { subresource: "status" });
      } catch (error) {
        if (!isNotFound(error)) failed = true;
        continue;
      }
      await recordEvent(cluster, pod, "Warning", "NodeNotReady", "Node is not ready", "node-controller");
    }
    if (failed) retry.add(node);
    else retry.delete(node);
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
