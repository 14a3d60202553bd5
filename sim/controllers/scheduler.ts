/**
 * The default scheduler: binds pods whose schedulerName is empty or `default-scheduler`
 * to a node that fits (schedulable, taints tolerated, node selector and required node
 * affinity, pod count and every requested resource: cpu, memory, extended resources such
 * as `nvidia.com/gpu`), least-loaded first, and records `Scheduled`. A pod
 * that fits nowhere gets a `FailedScheduling` Warning and a PodScheduled=False condition
 * with kube-scheduler's message, and is retried as kube-scheduler retries it: when a
 * node or a pod changes in a way that may make room, no sooner than its back-off (1 s
 * doubling to 10 s per attempt), and every 5 minutes anyway. Pods for another scheduler
 * stay Pending for it. Paused, it binds nothing, as when kube-scheduler is down: the pods
 * it would have tried wait, Pending, until it is resumed.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { taintTolerated } from "../../protocol/kube/taints.ts";
import type { Cluster, ClusterEvent, PausableController } from "../contract.ts";
import { recordEvent } from "./events.ts";
import { matchesNodeAffinity, pinnedNodeNames } from "./node-affinity.ts";
import { allocatableOf, charge, idleUsage, insufficient, podRequests, type Amounts, type Usage } from "./resources.ts";
import { arr, ignoreNotFound, isConflict, keyOf, KeyQueue, now, obj, splitNsKey, terminal, type Obj } from "./runtime.ts";
import { asTaint, asToleration, NOT_READY, UNREACHABLE } from "./taints.ts";
import { Wakeups } from "./wakeups.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
/** kube-scheduler's podInitialBackoffSeconds and podMaxBackoffSeconds. */
const BACKOFF_INITIAL_MS = 1000;
const BACKOFF_MAX_MS = 10_000;
/** podMaxInUnschedulablePodsDuration: an unschedulable pod is retried at least this often. */
const UNSCHEDULABLE_RETRY_MS = 5 * 60_000;
/** Whether preemption could resolve a reason (NodeResourcesFit's Unschedulable); the rest are UnschedulableAndUnresolvable. */
const resolvable = (reason: string): boolean => reason === "Too many pods" || reason.startsWith("Insufficient ");
/** The status of nodes a matchFields pin leaves out (the NodeAffinity PreFilter result). */
const NOT_PINNED = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

/** Whether the tolerations tolerate a taint (`TolerationsTolerateTaint`). */
export function tolerates(tolerations: readonly Obj[], taint: Obj): boolean {
  return taintTolerated(tolerations.map(asToleration), asTaint(taint));
}

/** The taint the node lifecycle controller puts on a node that is not Ready (the sim may not have added it yet). */
function notReadyTaint(node: KubeObject): Obj | undefined {
  const ready = arr(obj((node as Obj).status).conditions).find((c) => c.type === "Ready");
  if (ready?.status === "True") return undefined;
  return { key: ready?.status === "Unknown" ? UNREACHABLE : NOT_READY, effect: "NoSchedule" };
}

/** The first taint the pod does not tolerate among those that keep pods off (NoSchedule, NoExecute). */
function untoleratedTaint(pod: KubeObject, node: KubeObject): Obj | undefined {
  const tolerations = arr(obj((pod as Obj).spec).tolerations);
  const taints = arr(obj((node as Obj).spec).taints);
  const implied = notReadyTaint(node);
  const all = implied && !taints.some((t) => t.key === implied.key) ? [...taints, implied] : taints;
  return all.find((t) => (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerates(tolerations, t));
}

/**
 * Why a node cannot take a pod, as kube-scheduler's filter plugins in their default order
 * say it (the first failing plugin; NodeResourcesFit names every resource short); empty
 * when it fits. `requests` and `allocatable` are parsed once by the caller (the scheduler
 * tries one pod on every node).
 */
export function unfit(pod: KubeObject, node: KubeObject, used: Usage, requests: Amounts = podRequests(pod), allocatable: Amounts = allocatableOf(node)): string[] {
  const nodeSpec = obj((node as Obj).spec);
  const tolerations = arr(obj((pod as Obj).spec).tolerations);
  if (nodeSpec.unschedulable === true && !tolerates(tolerations, { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" })) return ["node(s) were unschedulable"];
  const taint = untoleratedTaint(pod, node);
  if (taint) return [`node(s) had untolerated taint {${String(taint.key ?? "")}: ${String(taint.value ?? "")}}`];
  if (!matchesNodeAffinity(pod, node)) return ["node(s) didn't match Pod's node affinity/selector"];
  return insufficient(requests, allocatable, used);
}

/** `N reason` per reason, sorted as strings, as kube-scheduler's FitError prints its histogram. */
function histogram(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).sort().join(", ");
}

/**
 * kube-scheduler's FailedScheduling message for a pod no node takes, given each node's
 * reasons, with the default preemption plugin's verdict (the sim has no lower-priority
 * victims to offer).
 */
export function fitErrorMessage(perNode: readonly (readonly string[])[]): string {
  const total = perNode.length;
  if (total === 0) return "no nodes available to schedule pods";
  const preemption = perNode.map((reasons) => (reasons.every(resolvable) ? "No preemption victims found for incoming pod" : "Preemption is not helpful for scheduling"));
  return `0/${total} nodes are available: ${histogram(perNode.flat())}. preemption: 0/${total} nodes are available: ${histogram(preemption)}.`;
}

const forUs = (pod: KubeObject): boolean => {
  const name = obj((pod as Obj).spec).schedulerName;
  return name === undefined || name === "" || name === "default-scheduler";
};

/** What of a node may change where pods fit (not its heartbeats). */
function nodeFingerprint(node: KubeObject): string {
  const ready = arr(obj((node as Obj).status).conditions).find((c) => c.type === "Ready")?.status;
  return JSON.stringify([node.metadata.labels ?? {}, obj((node as Obj).spec).taints ?? [], obj((node as Obj).spec).unschedulable ?? false, obj((node as Obj).status).allocatable ?? {}, ready]);
}

/** What of a pod its scheduling depends on (not its status). */
function podFingerprint(pod: KubeObject): string {
  return JSON.stringify([pod.metadata.labels ?? {}, (pod as Obj).spec ?? {}]);
}

/** The default scheduler: pausable, and says how many pods it holds while paused (what a test of the pause waits on). */
export interface SimScheduler extends PausableController {
  /** Pods kept aside while paused, to be tried on resume (0 when running). */
  holding(): number;
}

/** The default scheduler as a sim controller, which can be paused (pods stay Pending) and resumed. */
export function scheduler(): SimScheduler {
  /** Nodes with their allocatable parsed once per change. */
  const nodes = new Map<string, { object: KubeObject; allocatable: Amounts }>();
  /** Bound pods: their node and requests (parsed once, when the binding is seen). */
  const bound = new Map<string, { node: string; requests: Amounts }>();
  /** Unschedulable pods: their failed attempts, when the last one was, and whether a node lacked resources. */
  const pending = new Map<string, { attempts: number; last: number; resources: boolean }>();
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => schedule(key));
  const wakeups = new Wakeups((key) => queue.add(key));
  let flush: ReturnType<typeof setInterval> | undefined;
  /** While paused, the pods it would have tried: tried on resume. */
  let held: Set<string> | undefined;

  const perNode = new Map<string, Usage>();
  const IDLE = idleUsage();

  function usage(node: string): Usage {
    return perNode.get(node) ?? IDLE;
  }

  function usageFor(node: string): Usage {
    let u = perNode.get(node);
    if (!u) perNode.set(node, (u = idleUsage()));
    return u;
  }

  function account(key: string, next: { node: string; requests: Amounts } | undefined): boolean {
    const before = bound.get(key);
    if (before) {
      charge(usageFor(before.node), before.requests, -1);
      bound.delete(key);
    }
    if (next) {
      charge(usageFor(next.node), next.requests, 1);
      bound.set(key, next);
    }
    return before !== undefined;
  }

  /** Queues an unschedulable pod again once its back-off has passed. */
  function retry(key: string): void {
    const entry = pending.get(key);
    const due = entry ? entry.last + Math.min(BACKOFF_INITIAL_MS * 2 ** (entry.attempts - 1), BACKOFF_MAX_MS) : 0;
    if (due <= Date.now()) queue.add(key);
    else wakeups.at(key, due);
  }

  /** Retries the unschedulable pods; `resourcesOnly` for a change that only frees resources (a pod gone). */
  const retryPending = (resourcesOnly = false): void => {
    for (const [key, entry] of pending) if (!resourcesOnly || entry.resources) retry(key);
  };

  function forget(key: string): void {
    pending.delete(key);
    wakeups.cancel(key);
  }

  async function schedule(key: string): Promise<void> {
    if (!cluster) return;
    if (held) {
      held.add(key);
      return;
    }
    const [namespace, name] = splitNsKey(key);
    const pod = await cluster.find(POD, namespace, name);
    if (!pod || pod.metadata.deletionTimestamp || obj((pod as Obj).spec).nodeName || !forUs(pod)) return forget(key);
    const pinned = pinnedNodeNames(pod);
    const requests = podRequests(pod);
    const perNodeReasons: string[][] = [];
    let best: { name: string; pods: number } | undefined;
    for (const [nodeName, node] of nodes) {
      const used = usage(nodeName);
      const why = pinned && !pinned.has(nodeName) ? [NOT_PINNED] : unfit(pod, node.object, used, requests, node.allocatable);
      if (why.length > 0) perNodeReasons.push(why);
      else if (!best || used.pods < best.pods) best = { name: nodeName, pods: used.pods };
    }
    if (best) return bind(pod, key, best.name);
    await unschedulable(pod, key, fitErrorMessage(perNodeReasons), perNodeReasons.some((why) => why.some(resolvable)));
  }

  async function bind(pod: KubeObject, key: string, node: string): Promise<void> {
    if (!cluster) return;
    try {
      await cluster.bind(pod.metadata.namespace ?? "default", pod.metadata.name ?? "", node, pod.metadata.uid);
    } catch (error) {
      if (!isConflict(error)) throw error;
      return forget(key);
    }
    forget(key);
    await recordEvent(cluster, pod, "Normal", "Scheduled", `Successfully assigned ${pod.metadata.namespace ?? "default"}/${pod.metadata.name ?? ""} to ${node}`, "default-scheduler");
  }

  /** Records the failed attempt (event, back-off) and the PodScheduled=False condition. */
  async function unschedulable(pod: KubeObject, key: string, message: string, resources: boolean): Promise<void> {
    if (!cluster) return;
    const attempts = (pending.get(key)?.attempts ?? 0) + 1;
    pending.set(key, { attempts, last: Date.now(), resources });
    await recordEvent(cluster, pod, "Warning", "FailedScheduling", message, "default-scheduler");
    const conditions = arr(obj((pod as Obj).status).conditions);
    if (conditions.find((c) => c.type === "PodScheduled")?.message === message) return;
    const next = [...conditions.filter((c) => c.type !== "PodScheduled"), { type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastProbeTime: null, lastTransitionTime: now() }];
    await ignoreNotFound(cluster.patch(POD, pod.metadata.namespace, pod.metadata.name ?? "", { status: { conditions: next } }, "merge", { subresource: "status" }));
  }

  function onPod(event: ClusterEvent): void {
    const pod = event.object;
    const key = keyOf(pod);
    const nodeName = obj((pod as Obj).spec).nodeName;
    if (event.type === "DELETED" || terminal(pod)) {
      forget(key);
      // Room freed on a node may fit a pod that lacked room (and no other).
      if (account(key, undefined)) retryPending(true);
      return;
    }
    if (typeof nodeName === "string" && nodeName) {
      forget(key);
      if (!bound.has(key)) account(key, { node: nodeName, requests: podRequests(pod) });
      return;
    }
    if (!forUs(pod) || pod.metadata.deletionTimestamp) return forget(key);
    // Its own status changes (the PodScheduled condition) are no reason to try again.
    if (!pending.has(key)) queue.add(key);
    else if (!event.oldObject || podFingerprint(event.oldObject) !== podFingerprint(pod)) retry(key);
  }

  function onNode(event: ClusterEvent): void {
    const name = event.object.metadata.name ?? "";
    const before = nodes.get(name);
    if (event.type === "DELETED") {
      nodes.delete(name);
      return;
    }
    // Heartbeats change nothing the scheduler reads: the parsed allocatable is kept.
    const changed = !before || nodeFingerprint(before.object) !== nodeFingerprint(event.object);
    nodes.set(name, { object: event.object, allocatable: before && !changed ? before.allocatable : allocatableOf(event.object) });
    if (changed) retryPending();
  }

  /** Pods left unschedulable for 5 minutes are tried again whatever happened. */
  function flushUnschedulable(): void {
    const stale = Date.now() - UNSCHEDULABLE_RETRY_MS;
    for (const [key, entry] of pending) if (entry.last <= stale) queue.add(key);
  }

  return {
    name: "default-scheduler",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(NODE, onNode), c.watch(POD, onPod));
      void c.list(NODE).then((list) => list.items.forEach((node) => nodes.set(node.metadata.name ?? "", { object: node, allocatable: allocatableOf(node) })));
      flush = setInterval(flushUnschedulable, 30_000);
      flush.unref();
    },
    pause(): void {
      held ??= new Set();
    },
    holding(): number {
      return held?.size ?? 0;
    },
    resume(): void {
      const waiting = held ?? new Set<string>();
      held = undefined;
      for (const key of waiting) queue.add(key);
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      if (flush) clearInterval(flush);
      wakeups.stop();
      await queue.stop();
    },
  };
}
