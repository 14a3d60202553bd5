/**
 * The taint eviction controller: kube-controller-manager's `taint-eviction-controller`
 * (pkg/controller/tainteviction/taint_eviction.go, v1.32; the NoExecuteTaintManager of
 * pkg/controller/nodelifecycle/scheduler/taint_manager.go before 1.29), which evicts the
 * pods of nodes with NoExecute taints:
 *
 * - a pod that does not tolerate every NoExecute taint of its node goes at once;
 * - otherwise it goes after the least `tolerationSeconds` of the tolerations used (for each
 *   taint the first toleration that tolerates it; those without seconds are skipped; `<= 0`
 *   is now), counted from when its eviction was first scheduled: a later change of the
 *   pod's tolerations or of the node's taints to another finite time does not move it
 *   (`processPodOnNode` keeps a scheduled eviction that started earlier; Kubernetes' main
 *   branch has since started counting again when the taints it was scheduled for are all
 *   replaced, e.g. unreachable by not-ready; v1.32 does not, nor does the sim);
 * - tolerations that tolerate forever (no seconds on any used one), the taints going away
 *   or the pod going cancel a scheduled eviction (a deleted node's pods keep theirs, as
 *   upstream: the pod garbage collector deletes them).
 *
 * The scheduled evictions live in memory, as upstream's TimedWorkerQueue: a restarted sim,
 * like a restarted kube-controller-manager, schedules them again from its restart.
 * Like upstream, it reacts to changes of a node's NoExecute taints and of a pod's
 * tolerations or node, and an eviction records a `TaintManagerEviction` Event and sets the
 * pod's `DisruptionTarget` condition (reason `DeletionByTaintManager`) before deleting.
 *
 * One difference: upstream deletes with the pod's grace period; its kubelet being
 * unreachable, the pod then stays Terminating until the node comes back or is deleted.
 * The sim deletes with grace 0, since the only one that would end that termination is
 * the sim's kubelet of that node, which is stopped. A pod already terminating is left as
 * it is (upstream's delete changes nothing on it either).
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { recordEvent } from "./events.ts";
import { arr, ignoreNotFound, keyOf, now, obj, splitNsKey, type Obj } from "./runtime.ts";
import { matchingTolerations, minTolerationSeconds, noExecuteTaints, tolerationsOf } from "./taints.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
/** setTimeout's longest delay; a later eviction is re-armed when this one fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;
/** `retries` of upstream's deletePodHandler. */
const RETRIES = 5;

/** Time as the evictor sees it (tests pass a fake one). */
export interface EvictionClock {
  now(): number;
  /** Calls `fire` after `ms`; returns how to cancel that. */
  after(ms: number, fire: () => void): () => void;
}

/** Real time. */
export const realClock: EvictionClock = {
  now: () => Date.now(),
  after(ms: number, fire: () => void): () => void {
    let timer: ReturnType<typeof setTimeout>;
    const arm = (due: number): void => {
      timer = setTimeout(() => (Date.now() >= due ? fire() : arm(due)), Math.min(MAX_DELAY_MS, Math.max(0, due - Date.now())));
    };
    arm(Date.now() + ms);
    return () => clearTimeout(timer);
  },
};

/** One scheduled eviction (a TimedWorker): `cancel` is unset once it runs or when it ran at once. */
interface Work {
  readonly uid: string;
  readonly createdAt: number;
  readonly fireAt: number;
  cancel: (() => void) | undefined;
}

/** What the evictor asks of the cluster. */
export interface EvictionActions {
  /** Evicts the pod `namespace/name` of that uid. */
  evict(key: string, uid: string): Promise<void>;
  /** A scheduled eviction was cancelled (upstream records an Event). */
  cancelled(key: string): void;
}

/**
 * The controller's decisions, fed with node and pod changes as its informers would be:
 * the nodes' NoExecute taints, the pods by node, and the evictions scheduled.
 */
export class TaintEvictor {
  readonly #clock: EvictionClock;
  readonly #actions: EvictionActions;
  readonly #taintedNodes = new Map<string, Obj[]>();
  readonly #podsByNode = new Map<string, Map<string, KubeObject>>();
  readonly #work = new Map<string, Work>();
  #stopped = false;

  constructor(actions: EvictionActions, clock: EvictionClock = realClock) {
    this.#actions = actions;
    this.#clock = clock;
  }

  /** When the pod's eviction is due (epoch ms), if one is scheduled. */
  scheduled(key: string): number | undefined {
    return this.#work.get(key)?.fireAt;
  }

  /** `NodeUpdated`: acts only when the node's NoExecute taints changed (or it came or went). */
  nodeUpdated(old: KubeObject | undefined, node: KubeObject | undefined): void {
    const before = noExecuteTaints(old);
    const after = noExecuteTaints(node);
    if (old && node && JSON.stringify(before) === JSON.stringify(after)) return;
    const name = (node ?? old)?.metadata.name ?? "";
    if (!node) {
      this.#taintedNodes.delete(name);
      return;
    }
    // `handleNodeUpdate`: the taints are known before the node's pods are looked at.
    if (after.length === 0) this.#taintedNodes.delete(name);
    else this.#taintedNodes.set(name, after);
    const pods = [...(this.#podsByNode.get(name)?.values() ?? [])];
    if (after.length === 0) {
      for (const pod of pods) this.#cancel(keyOf(pod));
      return;
    }
    const at = this.#clock.now();
    for (const pod of pods) this.#processPodOnNode(pod, after, at);
  }

  /** `PodUpdated`: acts when a pod comes or goes, or its tolerations or node change. */
  podUpdated(old: KubeObject | undefined, pod: KubeObject | undefined): void {
    this.#index(old, pod);
    const nodeOf = (p: KubeObject | undefined): string => String(obj((p as Obj | undefined)?.spec).nodeName ?? "");
    if (old && pod && nodeOf(old) === nodeOf(pod) && sameTolerations(old, pod)) return;
    if (!pod) {
      if (old) this.#cancel(keyOf(old));
      return;
    }
    const node = nodeOf(pod);
    if (!node) return;
    // A node without NoExecute taints: its taints going away cancelled what there was.
    const taints = this.#taintedNodes.get(node);
    if (taints) this.#processPodOnNode(pod, taints, this.#clock.now());
  }

  /** Cancels every scheduled eviction, for good. */
  stop(): void {
    this.#stopped = true;
    for (const work of this.#work.values()) work.cancel?.();
    this.#work.clear();
  }

  #index(old: KubeObject | undefined, pod: KubeObject | undefined): void {
    const key = keyOf((pod ?? old) as KubeObject);
    const oldNode = String(obj((old as Obj | undefined)?.spec).nodeName ?? "");
    if (oldNode) this.#podsByNode.get(oldNode)?.delete(key);
    const node = String(obj((pod as Obj | undefined)?.spec).nodeName ?? "");
    if (!pod || !node) return;
    let pods = this.#podsByNode.get(node);
    if (!pods) this.#podsByNode.set(node, (pods = new Map()));
    pods.set(key, pod);
  }

  /** `processPodOnNode`, with `taints` the node's NoExecute taints (never empty here). */
  #processPodOnNode(pod: KubeObject, taints: readonly Obj[], at: number): void {
    const key = keyOf(pod);
    const uid = pod.metadata.uid ?? "";
    const { tolerated, used } = matchingTolerations(taints, tolerationsOf(pod));
    if (!tolerated) {
      this.#cancel(key);
      this.#add(key, uid, at, at);
      return;
    }
    const seconds = minTolerationSeconds(used);
    if (seconds === undefined) {
      this.#cancel(key);
      return;
    }
    let createdAt = at;
    const scheduled = this.#work.get(key);
    if (scheduled) {
      // An eviction scheduled earlier stands, whatever the new toleration time.
      if (scheduled.createdAt < at) return;
      createdAt = scheduled.createdAt;
      this.#cancel(key);
    }
    this.#add(key, uid, createdAt, at + seconds * 1000);
  }

  /** `TimedWorkerQueue.AddWork`: nothing when work for the pod exists already. */
  #add(key: string, uid: string, createdAt: number, fireAt: number): void {
    if (this.#stopped || this.#work.has(key)) return;
    const work: Work = { uid, createdAt, fireAt, cancel: undefined };
    this.#work.set(key, work);
    const delay = fireAt - createdAt;
    if (delay <= 0) this.#fire(key, work);
    else work.cancel = this.#clock.after(fireAt - this.#clock.now(), () => this.#fire(key, work));
  }

  #fire(key: string, work: Work): void {
    work.cancel = undefined;
    // The work stays listed while it runs (a new AddWork is skipped), then goes.
    void this.#actions
      .evict(key, work.uid)
      .catch(() => undefined)
      .finally(() => {
        if (this.#work.get(key) === work) this.#work.delete(key);
      });
  }

  /** `cancelWorkWithEvent`: an Event only for work still waiting on its timer. */
  #cancel(key: string): void {
    const work = this.#work.get(key);
    if (!work) return;
    this.#work.delete(key);
    if (!work.cancel) return;
    work.cancel();
    this.#actions.cancelled(key);
  }
}

/** Whether two versions of a pod have the same tolerations (a status write keeps the very same spec). */
function sameTolerations(a: KubeObject, b: KubeObject): boolean {
  const before = obj((a as Obj).spec).tolerations;
  const after = obj((b as Obj).spec).tolerations;
  return before === after || JSON.stringify(tolerationsOf(a)) === JSON.stringify(tolerationsOf(b));
}

/** The reference upstream's Events name a pod by (no uid). */
function podRef(key: string): KubeObject {
  const [namespace, name] = splitNsKey(key);
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace } } as KubeObject;
}

/** `UpdatePodCondition` with the DisruptionTarget condition `addConditionAndDeletePod` sets; undefined when unchanged. */
function withDisruptionTarget(pod: KubeObject): Obj[] | undefined {
  const conditions = arr(obj((pod as Obj).status).conditions);
  const wanted = { type: "DisruptionTarget", status: "True", reason: "DeletionByTaintManager", message: "Taint manager: deleting due to NoExecute taint" };
  const current = conditions.find((c) => c.type === wanted.type);
  if (current && current.status === wanted.status && current.reason === wanted.reason && current.message === wanted.message) return undefined;
  const condition = { ...wanted, lastProbeTime: null, lastTransitionTime: current?.status === wanted.status ? current.lastTransitionTime : now() };
  return current ? conditions.map((c) => (c.type === wanted.type ? condition : c)) : [...conditions, condition];
}

/** `deletePodHandler` and `addConditionAndDeletePod`, with grace 0 (see the file's comment). */
async function evictPod(cluster: Cluster, key: string, uid: string): Promise<void> {
  const [namespace, name] = splitNsKey(key);
  await recordEvent(cluster, podRef(key), "Normal", "TaintManagerEviction", `Marking for deletion Pod ${key}`, "taint-eviction-controller");
  for (let attempt = 1; ; attempt++) {
    try {
      const pod = await cluster.find(POD, namespace, name);
      if (!pod || pod.metadata.uid !== uid) return;
      const conditions = withDisruptionTarget(pod);
      if (conditions) {
        await cluster.patch(POD, namespace, name, { metadata: { resourceVersion: pod.metadata.resourceVersion }, status: { conditions } }, "merge", { subresource: "status" });
      }
      // Upstream's delete of a pod already terminating changes nothing; a grace-0 one would force it.
      if (!pod.metadata.deletionTimestamp) await ignoreNotFound(cluster.delete(POD, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } }));
      return;
    } catch (error) {
      if (attempt >= RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** An event as an informer handler's (old, new): no old on ADDED, no new on DELETED. */
function change(event: ClusterEvent): [KubeObject | undefined, KubeObject | undefined] {
  if (event.type === "ADDED") return [undefined, event.object];
  if (event.type === "DELETED") return [event.object, undefined];
  return [event.oldObject ?? event.object, event.object];
}

/** The taint eviction controller as a sim controller. */
export function taintEvictionController(clock: EvictionClock = realClock): SimController {
  const unwatch: (() => void)[] = [];
  let evictor: TaintEvictor | undefined;

  return {
    name: "taint-eviction-controller",
    start(cluster: Cluster): void {
      const active = new TaintEvictor(
        {
          evict: (key, uid) => evictPod(cluster, key, uid),
          cancelled: (key) => void recordEvent(cluster, podRef(key), "Normal", "TaintManagerEviction", `Cancelling deletion of Pod ${key}`, "taint-eviction-controller"),
        },
        clock,
      );
      evictor = active;
      const seen = new Set<string>();
      const onPod = (event: ClusterEvent): void => {
        seen.add(`pod ${keyOf(event.object)}`);
        active.podUpdated(...change(event));
      };
      const onNode = (event: ClusterEvent): void => {
        seen.add(`node ${event.object.metadata.name ?? ""}`);
        active.nodeUpdated(...change(event));
      };
      unwatch.push(cluster.watch(POD, onPod), cluster.watch(NODE, onNode));
      // The informers' initial list: pods first, so the nodes find theirs.
      void (async (): Promise<void> => {
        const [pods, nodes] = await Promise.all([cluster.list(POD), cluster.list(NODE)]);
        for (const pod of pods.items) if (!seen.has(`pod ${keyOf(pod)}`)) active.podUpdated(undefined, pod);
        for (const node of nodes.items) if (!seen.has(`node ${node.metadata.name ?? ""}`)) active.nodeUpdated(undefined, node);
      })().catch(() => undefined);
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      evictor?.stop();
    },
  };
}
