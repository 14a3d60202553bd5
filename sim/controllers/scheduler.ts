/**
 * The default scheduler: binds pods whose schedulerName is empty or `default-scheduler`
 * to a node that fits (Ready, schedulable, taints tolerated, nodeSelector, cpu, memory
 * and pod count), least-loaded first. Pods for another scheduler stay Pending for it.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { arr, ignoreNotFound, isConflict, keyOf, KeyQueue, now, obj, splitNsKey, terminal, type Obj } from "./runtime.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };

/** `500m` → 0.5, `2` → 2 (cpu); `1Gi` → bytes (memory). */
export function quantity(value: unknown): number {
  if (typeof value === "number") return value;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(value ?? "0"));
  if (!m) return 0;
  const n = Number(m[1]);
  const units: Record<string, number> = { "": 1, m: 1e-3, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
  return n * (units[m[2] ?? ""] ?? 1);
}

/** A pod's summed container requests. */
export function requestsOf(pod: KubeObject): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of arr(obj((pod as Obj).spec).containers)) {
    const requests = obj(obj(c.resources).requests);
    cpu += quantity(requests.cpu);
    memory += quantity(requests.memory);
  }
  return { cpu, memory };
}

/** Whether the tolerations tolerate a taint. */
export function tolerates(tolerations: readonly Obj[], taint: Obj): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === "Exists") return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
  });
}

/** Why a node cannot take a pod, or undefined when it can. */
export function unfit(pod: KubeObject, node: KubeObject, used: { cpu: number; memory: number; pods: number }): string | undefined {
  const nodeSpec = obj((node as Obj).spec);
  const status = obj((node as Obj).status);
  const ready = arr(status.conditions).find((c) => c.type === "Ready");
  if (ready?.status !== "True") return "node(s) were not ready";
  if (nodeSpec.unschedulable === true) return "node(s) were unschedulable";
  const podSpec = obj((pod as Obj).spec);
  const tolerations = arr(podSpec.tolerations);
  if (arr(nodeSpec.taints).some((t) => (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerates(tolerations, t))) return "node(s) had untolerated taint(s)";
  const labels = node.metadata.labels ?? {};
  if (Object.entries(obj(podSpec.nodeSelector)).some(([k, v]) => labels[k] !== v)) return "node(s) didn't match Pod's node affinity/selector";
  const allocatable = obj(status.allocatable);
  const wants = requestsOf(pod);
  if (used.pods + 1 > quantity(allocatable.pods ?? 110)) return "Too many pods";
  if (used.cpu + wants.cpu > quantity(allocatable.cpu ?? 0) + 1e-9) return "Insufficient cpu";
  if (used.memory + wants.memory > quantity(allocatable.memory ?? 0)) return "Insufficient memory";
  return undefined;
}

const forUs = (pod: KubeObject): boolean => {
  const name = obj((pod as Obj).spec).schedulerName;
  return name === undefined || name === "" || name === "default-scheduler";
};

/** The default scheduler as a sim controller. */
export function scheduler(): SimController {
  const nodes = new Map<string, KubeObject>();
  const bound = new Map<string, { node: string; cpu: number; memory: number }>();
  const pending = new Set<string>();
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => schedule(key));

  const perNode = new Map<string, { cpu: number; memory: number; pods: number }>();

  function usage(node: string): { cpu: number; memory: number; pods: number } {
    return perNode.get(node) ?? { cpu: 0, memory: 0, pods: 0 };
  }

  function account(key: string, next: { node: string; cpu: number; memory: number } | undefined): boolean {
    const before = bound.get(key);
    if (before) {
      const u = usage(before.node);
      perNode.set(before.node, { cpu: u.cpu - before.cpu, memory: u.memory - before.memory, pods: u.pods - 1 });
      bound.delete(key);
    }
    if (next) {
      const u = usage(next.node);
      perNode.set(next.node, { cpu: u.cpu + next.cpu, memory: u.memory + next.memory, pods: u.pods + 1 });
      bound.set(key, next);
    }
    return before !== undefined;
  }

  async function schedule(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const pod = await cluster.find(POD, namespace, name);
    if (!pod || pod.metadata.deletionTimestamp || obj((pod as Obj).spec).nodeName || !forUs(pod)) return void pending.delete(key);
    const reasons = new Map<string, number>();
    let best: { name: string; pods: number } | undefined;
    for (const node of nodes.values()) {
      const used = usage(node.metadata.name ?? "");
      const why = unfit(pod, node, used);
      if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
      else if (!best || used.pods < best.pods) best = { name: node.metadata.name ?? "", pods: used.pods };
    }
    if (best) {
      try {
        await cluster.bind(namespace, name, best.name, pod.metadata.uid);
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
      pending.delete(key);
      return;
    }
    pending.add(key);
    const message = `0/${nodes.size} nodes are available: ${[...reasons].map(([why, n]) => `${n} ${why}`).join(", ")}.`;
    const existing = arr(obj((pod as Obj).status).conditions).find((c) => c.type === "PodScheduled");
    if (existing?.message === message) return;
    const conditions = [...arr(obj((pod as Obj).status).conditions).filter((c) => c.type !== "PodScheduled"), { type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastProbeTime: null, lastTransitionTime: now() }];
    await ignoreNotFound(cluster.patch(POD, namespace, name, { status: { conditions } }, "merge", { subresource: "status" }));
  }

  const retryPending = (): void => pending.forEach((key) => queue.add(key));

  function onPod(event: ClusterEvent): void {
    const pod = event.object;
    const key = keyOf(pod);
    const nodeName = obj((pod as Obj).spec).nodeName;
    if (event.type === "DELETED" || terminal(pod)) {
      if (account(key, undefined)) retryPending();
      pending.delete(key);
      return;
    }
    if (typeof nodeName === "string" && nodeName) {
      if (!bound.has(key)) account(key, { node: nodeName, ...requestsOf(pod) });
      return;
    }
    if (forUs(pod) && !pod.metadata.deletionTimestamp) queue.add(key);
  }

  function onNode(event: ClusterEvent): void {
    const name = event.object.metadata.name ?? "";
    if (event.type === "DELETED") nodes.delete(name);
    else nodes.set(name, event.object);
    if (event.type !== "DELETED") retryPending();
  }

  return {
    name: "default-scheduler",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(NODE, onNode), c.watch(POD, onPod));
      void c.list(NODE).then((list) => list.items.forEach((node) => nodes.set(node.metadata.name ?? "", node)));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
