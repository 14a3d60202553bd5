/**
 * The DaemonSet controller: a pod on every node the DaemonSet should run on (node
 * selector, required node affinity, taints against its tolerations and the daemon
 * defaults), none elsewhere; a changed template rolled node by node within
 * maxUnavailable (RollingUpdate) or left to pod deletions (OnDelete); and the status
 * kube-controller-manager writes, which `kubectl rollout status ds/x` reads.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { controllerRevision, CONTROLLER_REVISION, recordRevision } from "./controller-revisions.ts";
import { OwnedIndex, writeStatusIfChanged } from "./owned-index.ts";
import { daemonPod, daemonPodNode, daemonTemplateHash, placement, REVISION_HASH_LABEL } from "./daemon-pods.ts";
import { resolvePercent } from "./deployment.ts";
import { createPod, deletePod } from "./podcontrol.ts";
import { keyOf, KeyQueue, obj, podReady, splitNsKey, terminal, type Obj } from "./runtime.ts";

const DAEMON_SET = { apiVersion: "apps/v1", kind: "DaemonSet" };
const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const SOURCE = "daemonset-controller";

/** What one sync found: pods by node and what should be where. */
interface Survey {
  readonly desired: number;
  readonly scheduled: number;
  readonly misscheduled: number;
  readonly create: string[];
  readonly remove: KubeObject[];
  /** The pod each node that should run one keeps (its oldest live one). */
  readonly kept: KubeObject[];
}

/** Compares the nodes with the pods: what to create, what to delete (the pure core of manage()). */
export function survey(ds: KubeObject, nodes: readonly KubeObject[], pods: readonly KubeObject[]): Survey {
  const byNode = new Map<string, KubeObject[]>();
  const remove: KubeObject[] = [];
  for (const pod of pods) {
    const node = daemonPodNode(pod);
    if (node === undefined) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  const create: string[] = [];
  const kept: KubeObject[] = [];
  let desired = 0;
  let scheduled = 0;
  let misscheduled = 0;
  for (const node of nodes) {
    const name = node.metadata.name ?? "";
    const { shouldRun, shouldContinueRunning } = placement(ds, node);
    const here = (byNode.get(name) ?? []).sort((a, b) => (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? ""));
    byNode.delete(name);
    if (shouldRun) desired++;
    const live = here.filter((p) => !p.metadata.deletionTimestamp);
    if (shouldRun && live.length > 0 && obj((live[0] as Obj).spec).nodeName) scheduled++;
    if (!shouldRun && live.some((p) => obj((p as Obj).spec).nodeName)) misscheduled++;
    if (shouldRun) {
      // A failed daemon pod is deleted, and made again once it is gone (a terminating one is waited for).
      remove.push(...live.filter(terminal));
      const running = live.filter((p) => !terminal(p));
      if (here.length === 0) create.push(name);
      const [first, ...extra] = running;
      if (first) kept.push(first);
      remove.push(...extra);
    } else if (!shouldContinueRunning) remove.push(...live);
  }
  // Pods on nodes that are gone.
  for (const orphans of byNode.values()) remove.push(...orphans.filter((p) => !p.metadata.deletionTimestamp));
  return { desired, scheduled, misscheduled, create, remove, kept };
}

/**
 * rollingUpdate with maxSurge 0: old pods that are not available go at once; available
 * ones only while fewer than maxUnavailable daemon pods are unavailable.
 */
export function rollingVictims(ds: KubeObject, kept: readonly KubeObject[], desired: number, hash: string): KubeObject[] {
  const strategy = obj(obj((ds as Obj).spec).updateStrategy);
  if (strategy.type === "OnDelete") return [];
  const maxUnavailable = Math.max(1, resolvePercent(obj(strategy.rollingUpdate).maxUnavailable ?? 1, desired, true));
  const old = kept.filter((p) => p.metadata.labels?.[REVISION_HASH_LABEL] !== hash);
  const unavailable = desired - kept.filter(podReady).length;
  const victims = old.filter((p) => !podReady(p));
  let budget = maxUnavailable - unavailable;
  for (const pod of old.filter(podReady)) {
    if (budget <= 0) break;
    victims.push(pod);
    budget--;
  }
  return victims;
}

/** The DaemonSet controller as a sim controller. */
export function daemonSetController(): SimController {
  const owned = new OwnedIndex("DaemonSet");
  const nodes = new Map<string, KubeObject>();
  const daemonSets = new Set<string>();
  const revisions = new OwnedIndex("DaemonSet");
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => sync(key));

  async function sync(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const ds = await cluster.find(DAEMON_SET, namespace, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const pods = owned.of(ds.metadata.uid ?? "");
    const found = survey(ds, [...nodes.values()], pods);
    const hash = daemonTemplateHash(ds);
    await recordRevision(cluster, revisions, controllerRevision(ds, DAEMON_SET, hash, REVISION_HASH_LABEL, 0), ds.metadata.uid ?? "");
    for (const node of found.create) await createPod(cluster, ds, daemonPod(ds, node), SOURCE);
    for (const pod of [...found.remove, ...rollingVictims(ds, found.kept, found.desired, hash)]) await deletePod(cluster, ds, pod, SOURCE);
    await writeStatus(ds, found, pods, hash);
  }

  async function writeStatus(ds: KubeObject, found: Survey, pods: readonly KubeObject[], hash: string): Promise<void> {
    if (!cluster) return;
    const ready = found.kept.filter(podReady);
    const updated = pods.filter((p) => !p.metadata.deletionTimestamp && p.metadata.labels?.[REVISION_HASH_LABEL] === hash && obj((p as Obj).spec).nodeName);
    // DaemonSetStatus: the first four always; observedGeneration and the rest `omitempty` (null in the patch when zero).
    const count = (n: number): number | null => (n > 0 ? n : null);
    const status: Obj = {
      currentNumberScheduled: found.scheduled,
      numberMisscheduled: found.misscheduled,
      desiredNumberScheduled: found.desired,
      numberReady: ready.length,
      observedGeneration: ds.metadata.generation ?? 1,
      updatedNumberScheduled: count(updated.length),
      numberAvailable: count(ready.length),
      numberUnavailable: count(found.desired - ready.length),
    };
    await writeStatusIfChanged(cluster, DAEMON_SET, ds, status);
  }

  /** A controlled object changed: its owner syncs. */
  function follow(index: OwnedIndex, event: ClusterEvent): void {
    const owner = index.observe(event);
    if (owner) queue.add(owner);
  }

  function onDaemonSet(event: ClusterEvent): void {
    if (event.type === "DELETED") {
      owned.forget(event.object.metadata.uid ?? "");
      revisions.forget(event.object.metadata.uid ?? "");
      daemonSets.delete(keyOf(event.object));
    } else {
      daemonSets.add(keyOf(event.object));
      queue.add(keyOf(event.object));
    }
  }

  function onNode(event: ClusterEvent): void {
    const name = event.object.metadata.name ?? "";
    if (event.type === "DELETED") nodes.delete(name);
    else nodes.set(name, event.object);
    for (const key of daemonSets) queue.add(key);
  }

  return {
    name: "daemonset-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(
        c.watch(NODE, onNode),
        c.watch(POD, (event) => follow(owned, event)),
        c.watch(DAEMON_SET, onDaemonSet),
        c.watch(CONTROLLER_REVISION, (event) => follow(revisions, event)),
      );
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
