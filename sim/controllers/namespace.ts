/**
 * The namespace controller: a namespace being deleted has everything in it deleted, as a
 * user's delete would be (background propagation, finalizers and graceful pod
 * termination respected), its status conditions say what is left and which finalizers
 * hold it, and once nothing is left it is finalized (`kubernetes` taken out of
 * `spec.finalizers` through the `finalize` subresource), which removes it.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { arr, ignoreNotFound, isConflict, KeyQueue, now, obj, type Obj } from "./runtime.ts";

const NAMESPACE = { apiVersion: "v1", kind: "Namespace" };
const FINALIZER = "kubernetes";

/** The condition types the namespace deleter maintains, with their all-clear reason and message. */
const CONDITIONS: readonly { type: string; reason: string; message: string }[] = [
  { type: "NamespaceDeletionDiscoveryFailure", reason: "ResourcesDiscovered", message: "All resources successfully discovered" },
  { type: "NamespaceDeletionGroupVersionParsingFailure", reason: "ParsedGroupVersions", message: "All legacy kube types successfully parsed" },
  { type: "NamespaceDeletionContentFailure", reason: "ContentDeleted", message: "All content successfully deleted, may be waiting on finalization" },
  { type: "NamespaceContentRemaining", reason: "ContentRemoved", message: "All content successfully removed" },
  { type: "NamespaceFinalizersRemaining", reason: "ContentHasNoFinalizers", message: "All content-preserving finalizers finished" },
];

/** What is left in a namespace after one round of deletes. */
interface Remaining {
  /** `pods.` / `deployments.apps` → how many. */
  readonly byResource: Map<string, number>;
  /** Finalizer → how many objects it holds. */
  readonly byFinalizer: Map<string, number>;
}

function specFinalizers(namespace: KubeObject): string[] {
  const finalizers = obj((namespace as Obj).spec).finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === "string") : [];
}

/** `a has 1 resource instances, b has 2 ...`, sorted as upstream sorts it for stable updates. */
function summary(counts: ReadonlyMap<string, number>, format: (key: string, n: number) => string): string {
  return [...counts].map(([key, n]) => format(key, n)).sort().join(", ");
}

/** The five conditions for what remains; a condition keeps its transition time unless its status changes. */
function conditionsFor(remaining: Remaining, previous: readonly Obj[]): Obj[] {
  const failing = new Map<string, { reason: string; message: string }>();
  if (remaining.byResource.size > 0) {
    failing.set("NamespaceContentRemaining", { reason: "SomeResourcesRemain", message: `Some resources are remaining: ${summary(remaining.byResource, (r, n) => `${r} has ${n} resource instances`)}` });
  }
  if (remaining.byFinalizer.size > 0) {
    failing.set("NamespaceFinalizersRemaining", { reason: "SomeFinalizersRemain", message: `Some content in the namespace has finalizers remaining: ${summary(remaining.byFinalizer, (f, n) => `${f} in ${n} resource instances`)}` });
  }
  const stamp = now();
  return CONDITIONS.map((c) => {
    const wanted = failing.get(c.type);
    const status = wanted ? "True" : "False";
    const old = previous.find((p) => p.type === c.type);
    const lastTransitionTime = old && old.status === status ? String(old.lastTransitionTime ?? stamp) : stamp;
    return { type: c.type, status, lastTransitionTime, reason: wanted?.reason ?? c.reason, message: wanted?.message ?? c.message };
  });
}

/** Whether the conditions differ in anything but transition times. */
function changed(before: readonly Obj[], after: readonly Obj[]): boolean {
  const key = (list: readonly Obj[]): string => JSON.stringify(list.map((c) => [c.type, c.status, c.reason, c.message]));
  return key(before) !== key(after);
}

/** The namespace controller as a sim controller. */
export function namespaceController(): SimController {
  const terminating = new Set<string>();
  let cluster: Cluster | undefined;
  let unwatch: (() => void) | undefined;
  const queue = new KeyQueue((name) => sync(name));

  function onEvent(event: ClusterEvent): void {
    const object = event.object;
    if (object.apiVersion === "v1" && object.kind === "Namespace") {
      const name = object.metadata.name ?? "";
      if (event.type === "DELETED") terminating.delete(name);
      else if (object.metadata.deletionTimestamp) {
        terminating.add(name);
        queue.add(name);
      }
      return;
    }
    // Content going (or shedding a finalizer) may be what the namespace waits for.
    const namespace = object.metadata.namespace;
    if (namespace !== undefined && terminating.has(namespace) && event.type !== "ADDED") queue.add(namespace);
  }

  /** Deletes what is left in the namespace, then lists what still is. */
  async function deleteContent(c: Cluster, namespace: string): Promise<Remaining> {
    const remaining: Remaining = { byResource: new Map(), byFinalizer: new Map() };
    for (const resource of c.resources().filter((r) => r.namespaced)) {
      for (const object of (await c.list(resource.type, { namespace })).items) {
        if (object.metadata.deletionTimestamp) continue;
        await ignoreNotFound(c.delete(resource.type, namespace, object.metadata.name ?? "", { propagationPolicy: "Background", preconditions: { uid: object.metadata.uid ?? "" } })).catch((error: unknown) => {
          // Replaced in the meantime: the next round sees the new one.
          if (!isConflict(error)) throw error;
        });
      }
      const left = (await c.list(resource.type, { namespace })).items;
      if (left.length === 0) continue;
      remaining.byResource.set(`${resource.plural}.${resource.group}`, left.length);
      for (const finalizer of left.flatMap((o) => o.metadata.finalizers ?? [])) remaining.byFinalizer.set(finalizer, (remaining.byFinalizer.get(finalizer) ?? 0) + 1);
    }
    return remaining;
  }

  async function sync(name: string): Promise<void> {
    if (!cluster) return;
    const namespace = await cluster.find(NAMESPACE, undefined, name);
    if (!namespace?.metadata.deletionTimestamp) {
      terminating.delete(name);
      return;
    }
    if (!specFinalizers(namespace).includes(FINALIZER)) return;
    const remaining = await deleteContent(cluster, name);
    const previous = arr(obj((namespace as Obj).status).conditions);
    const conditions = conditionsFor(remaining, previous);
    let latest = namespace;
    if (changed(previous, conditions)) latest = await cluster.patch(NAMESPACE, undefined, name, { status: { conditions } }, "merge", { subresource: "status" });
    // Still waiting: the deletions and finalizer removals to come requeue the namespace.
    if (remaining.byResource.size > 0) return;
    const finalizers = specFinalizers(latest).filter((f) => f !== FINALIZER);
    await ignoreNotFound(cluster.update({ ...latest, spec: { ...obj((latest as Obj).spec), finalizers } } as KubeObject, { subresource: "finalize" }));
  }

  return {
    name: "namespace-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch = c.watch(null, onEvent);
      // Namespaces already terminating (a restored cluster) resume at once.
      void c
        .list(NAMESPACE)
        .then((list) => list.items.filter((ns) => ns.metadata.deletionTimestamp).forEach((ns) => onEvent({ type: "MODIFIED", object: ns })))
        .catch(() => undefined);
    },
    async stop(): Promise<void> {
      unwatch?.();
      await queue.stop();
    },
  };
}
