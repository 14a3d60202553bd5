/**
 * The ReplicaSet controller: keeps `spec.replicas` live pods from the template, owned by
 * the ReplicaSet (controller ownerReference), and reports replicas, ready and available.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { controllerOf, ignoreNotFound, keyOf, KeyQueue, obj, podReady, splitNsKey, terminal, type Obj } from "./runtime.ts";

const RS = { apiVersion: "apps/v1", kind: "ReplicaSet" };
const POD = { apiVersion: "v1", kind: "Pod" };

/** A pod for a ReplicaSet, from its template. */
export function podFor(rs: KubeObject): KubeObject {
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
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: rs.metadata.name ?? "", uid: rs.metadata.uid ?? "", controller: true, blockOwnerDeletion: true }],
    },
    spec: obj(template.spec),
  } as KubeObject;
}

/** The ReplicaSet controller as a sim controller. */
export function replicaSetController(): SimController {
  /** Pods by owning ReplicaSet uid. */
  const owned = new Map<string, Map<string, KubeObject>>();
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => sync(key));

  async function sync(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const rs = await cluster.find(RS, namespace, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = [...(owned.get(rs.metadata.uid ?? "")?.values() ?? [])];
    const live = pods.filter((p) => !p.metadata.deletionTimestamp && !terminal(p));
    const want = Number(obj((rs as Obj).spec).replicas ?? 1);
    for (let i = live.length; i < want; i++) await cluster.create(podFor(rs));
    if (live.length > want) {
      // Remove the least useful first: not ready, then newest.
      const victims = [...live].sort((a, b) => Number(podReady(a)) - Number(podReady(b)) || (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "")).slice(0, live.length - want);
      for (const pod of victims) await ignoreNotFound(cluster.delete(POD, namespace, pod.metadata.name ?? ""));
    }
    const current = [...(owned.get(rs.metadata.uid ?? "")?.values() ?? [])].filter((p) => !p.metadata.deletionTimestamp && !terminal(p));
    const ready = current.filter(podReady).length;
    const status = { replicas: current.length, fullyLabeledReplicas: current.length, readyReplicas: ready, availableReplicas: ready, observedGeneration: rs.metadata.generation ?? 1 };
    const before = obj((rs as Obj).status);
    if (Object.entries(status).some(([k, v]) => before[k] !== v)) {
      await ignoreNotFound(cluster.patch(RS, namespace, name, { status }, "merge", { subresource: "status" }));
    }
  }

  function onPod(event: ClusterEvent): void {
    const owner = controllerOf(event.object);
    if (owner?.kind !== "ReplicaSet") return;
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
    name: "replicaset-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(POD, onPod), c.watch(RS, onReplicaSet));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
