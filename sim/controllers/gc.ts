/**
 * The garbage collector: dependents go when their owners go (background), before them
 * (foreground: the owner's `foregroundDeletion` finalizer waits for blocking dependents),
 * or are released (orphan: ownerReferences stripped, then the `orphan` finalizer
 * removed). Works for every kind, custom resources included.
 */
import type { KubeObject, OwnerReference, TypeRef } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { ignoreNotFound, KeyQueue } from "./runtime.ts";

interface Node {
  readonly type: TypeRef;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly uid: string;
  readonly owners: readonly OwnerReference[];
  readonly deleting: boolean;
  readonly finalizers: readonly string[];
}

function nodeOf(object: KubeObject): Node {
  return {
    type: { apiVersion: object.apiVersion, kind: object.kind },
    namespace: object.metadata.namespace,
    name: object.metadata.name ?? "",
    uid: object.metadata.uid ?? "",
    owners: object.metadata.ownerReferences ?? [],
    deleting: Boolean(object.metadata.deletionTimestamp),
    finalizers: object.metadata.finalizers ?? [],
  };
}

/** The garbage collector as a sim controller. */
export function garbageCollector(): SimController {
  const objects = new Map<string, Node>();
  const dependents = new Map<string, Set<string>>();
  let cluster: Cluster | undefined;
  let unwatch: (() => void) | undefined;
  const queue = new KeyQueue((key) => process(key));

  function link(node: Node): void {
    for (const owner of node.owners) {
      let set = dependents.get(owner.uid);
      if (!set) dependents.set(owner.uid, (set = new Set()));
      set.add(node.uid);
    }
  }

  function unlink(node: Node): void {
    for (const owner of node.owners) dependents.get(owner.uid)?.delete(node.uid);
  }

  function onEvent(event: ClusterEvent): void {
    const node = nodeOf(event.object);
    const before = objects.get(node.uid);
    if (before) unlink(before);
    if (event.type === "DELETED") {
      objects.delete(node.uid);
      // Dependents of a removed owner are orphans to collect; owners waiting on it look again.
      if (dependents.has(node.uid)) queue.add(`owner-gone:${node.uid}`);
      for (const owner of node.owners) if (objects.get(owner.uid)?.deleting) queue.add(`deleting:${owner.uid}`);
      return;
    }
    objects.set(node.uid, node);
    link(node);
    if (node.deleting && (node.finalizers.includes("foregroundDeletion") || node.finalizers.includes("orphan"))) queue.add(`deleting:${node.uid}`);
    if (node.owners.length > 0 && (event.type === "ADDED" || before === undefined)) queue.add(`check:${node.uid}`);
    for (const owner of node.owners) if (objects.get(owner.uid)?.deleting) queue.add(`deleting:${owner.uid}`);
  }

  const ownersGone = (node: Node): boolean => node.owners.every((o) => !objects.has(o.uid));

  async function remove(node: Node, policy: "Background" | "Foreground"): Promise<void> {
    if (!cluster || node.deleting) return;
    await ignoreNotFound(cluster.delete(node.type, node.namespace, node.name, { propagationPolicy: policy, preconditions: { uid: node.uid } }));
  }

  async function dropFinalizer(node: Node, finalizer: string): Promise<void> {
    if (!cluster) return;
    const finalizers = node.finalizers.filter((f) => f !== finalizer);
    await ignoreNotFound(cluster.patch(node.type, node.namespace, node.name, { metadata: { finalizers: finalizers.length ? finalizers : null } }, "merge"));
  }

  async function process(key: string): Promise<void> {
    const [what, uid = ""] = key.split(":");
    if (what === "check") {
      const node = objects.get(uid);
      if (node && ownersGone(node)) await remove(node, "Background");
      return;
    }
    if (what === "owner-gone") {
      for (const dependentUid of [...(dependents.get(uid) ?? [])]) {
        const node = objects.get(dependentUid);
        if (node && ownersGone(node)) await remove(node, "Background");
      }
      if ((dependents.get(uid)?.size ?? 0) === 0) dependents.delete(uid);
      return;
    }
    const owner = objects.get(uid);
    if (!owner?.deleting) return;
    const children = [...(dependents.get(uid) ?? [])].map((d) => objects.get(d)).filter((n): n is Node => n !== undefined);
    if (owner.finalizers.includes("orphan")) {
      for (const child of children) {
        const owners = child.owners.filter((o) => o.uid !== uid);
        if (cluster) await ignoreNotFound(cluster.patch(child.type, child.namespace, child.name, { metadata: { ownerReferences: owners.length ? owners : null } }, "merge"));
      }
      await dropFinalizer(owner, "orphan");
      return;
    }
    if (owner.finalizers.includes("foregroundDeletion")) {
      for (const child of children) await remove(child, "Foreground");
      const blocking = children.filter((c) => c.owners.some((o) => o.uid === uid && o.blockOwnerDeletion === true));
      if (blocking.length === 0) await dropFinalizer(owner, "foregroundDeletion");
    }
  }

  return {
    name: "garbage-collector",
    start(c: Cluster): void {
      cluster = c;
      unwatch = c.watch(null, onEvent);
    },
    async stop(): Promise<void> {
      unwatch?.();
      await queue.stop();
    },
  };
}
