/**
 * The ReplicaSet controller: keeps `spec.replicas` live pods from the template, owned by
 * the ReplicaSet (controller ownerReference), and reports replicas, ready and available.
 * Each pod created or deleted is an Event on the ReplicaSet; a refused create is a
 * `FailedCreate` Warning and the `ReplicaFailure` condition, retried with backoff.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerOf, controllerRef } from "../../protocol/kube/owner.ts";
import { jsonEqual } from "../api/objects.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { createPod, deletePod, errorMessage } from "./podcontrol.ts";
import { FailureBackoff } from "./retry.ts";
import { arr, ignoreNotFound, keyOf, KeyQueue, now, obj, podReady, splitNsKey, terminal, type Obj } from "./runtime.ts";

const RS = { apiVersion: "apps/v1", kind: "ReplicaSet" };
const RC = { apiVersion: "v1", kind: "ReplicationController" };
const POD = { apiVersion: "v1", kind: "Pod" };

/** What the controller keeps replicas of: ReplicaSets, or core/v1 ReplicationControllers (upstream runs the same code for both). */
interface Replicated {
  readonly type: { readonly apiVersion: string; readonly kind: string };
  readonly source: "replicaset-controller" | "replication-controller";
}

/** A pod for a ReplicaSet (or ReplicationController), from its template. */
export function podFor(rs: KubeObject, type: Replicated["type"] = RS): KubeObject {
  const template = obj(obj((rs as Obj).spec).template);
  const meta = obj(template.metadata);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${rs.metadata.name ?? ""}-`,
      namespace: rs.metadata.namespace,
      labels: obj(meta.labels) as Record<string, string>,
      ...(meta.annotations ? { annotations: meta.annotations as Record<string, string> } : {}),
      ownerReferences: [controllerRef(rs, type)],
    },
    spec: obj(template.spec),
  } as KubeObject;
}

/** The ReplicaSet controller as a sim controller. */
export function replicaSetController(): SimController {
  return replicatedController({ type: RS, source: "replicaset-controller" });
}

/** The ReplicationController manager: the ReplicaSet controller's code for core/v1 ReplicationControllers. */
export function replicationControllerManager(): SimController {
  return replicatedController({ type: RC, source: "replication-controller" });
}

function replicatedController({ type, source }: Replicated): SimController {
  /** Pods by owning ReplicaSet uid. */
  const owned = new Map<string, Map<string, KubeObject>>();
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const failures = new FailureBackoff();
  const queue = new KeyQueue((key) => sync(key));

  async function sync(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const rs = await cluster.find(type, namespace, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const error = await manageReplicas(rs);
    if (error === undefined) failures.forget(key);
    else queue.addAfter(key, failures.next(key));
    await writeStatus(rs, error);
  }

  /** Creates or deletes pods towards `spec.replicas`; returns what the API refused, if anything. */
  async function manageReplicas(rs: KubeObject): Promise<{ reason: "FailedCreate" | "FailedDelete"; message: string } | undefined> {
    if (!cluster) return undefined;
    const live = livePods(rs);
    const want = Number(obj((rs as Obj).spec).replicas ?? 1);
    for (let i = live.length; i < want; i++) {
      const created = await createPod(cluster, rs, podFor(rs, type), source);
      // Slow start: the first refusal ends this round.
      if (!created.ok) return { reason: "FailedCreate", message: errorMessage(created.error) };
    }
    if (live.length <= want) return undefined;
    // Remove the least useful first: not ready, then newest.
    const victims = [...live].sort((a, b) => Number(podReady(a)) - Number(podReady(b)) || (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "")).slice(0, live.length - want);
    for (const pod of victims) if (!(await deletePod(cluster, rs, pod, source))) return { reason: "FailedDelete", message: "unable to delete pods" };
    return undefined;
  }

  function livePods(rs: KubeObject): KubeObject[] {
    return [...(owned.get(rs.metadata.uid ?? "")?.values() ?? [])].filter((p) => !p.metadata.deletionTimestamp && !terminal(p));
  }

  /** Counts, and the ReplicaFailure condition while pod writes are refused. */
  async function writeStatus(rs: KubeObject, error: { reason: string; message: string } | undefined): Promise<void> {
    if (!cluster) return;
    const current = livePods(rs);
    const ready = current.filter(podReady).length;
    const before = obj((rs as Obj).status);
    const others = arr(before.conditions).filter((c) => c.type !== "ReplicaFailure");
    const failure = arr(before.conditions).find((c) => c.type === "ReplicaFailure");
    const conditions = error ? [...others, failure ?? { type: "ReplicaFailure", status: "True", lastTransitionTime: now(), reason: error.reason, message: error.message }] : others;
    // ReplicaSetStatus: `replicas` always, the other counts `omitempty` (null in the patch when zero), terminatingReplicas a pointer.
    const count = (n: number): number | null => (n > 0 ? n : null);
    // ReplicationControllerStatus has no terminatingReplicas.
    const terminating = type === RS ? { terminatingReplicas: 0 } : {};
    const status = { replicas: current.length, fullyLabeledReplicas: count(current.length), readyReplicas: count(ready), availableReplicas: count(ready), ...terminating, observedGeneration: rs.metadata.generation ?? 1 };
    const changed = Object.entries(status).some(([k, v]) => (before[k] ?? null) !== v) || !jsonEqual(conditions, arr(before.conditions));
    if (changed) {
      await ignoreNotFound(cluster.patch(type, rs.metadata.namespace, rs.metadata.name ?? "", { status: { ...status, conditions: conditions.length > 0 ? conditions : null } }, "merge", { subresource: "status" }));
    }
  }

  function onPod(event: ClusterEvent): void {
    const owner = controllerOf(event.object);
    if (owner?.kind !== type.kind) return;
    let pods = owned.get(owner.uid);
    if (!pods) owned.set(owner.uid, (pods = new Map()));
    if (event.type === "DELETED") pods.delete(keyOf(event.object));
    else pods.set(keyOf(event.object), event.object);
    queue.add(`${event.object.metadata.namespace ?? ""}/${owner.name}`);
  }

  function onReplicaSet(event: ClusterEvent): void {
    if (event.type === "DELETED") owned.delete(event.object.metadata.uid ?? "");
    else queue.add(keyOf(event.object));
  }

  return {
    name: source,
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(POD, onPod), c.watch(type, onReplicaSet));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
