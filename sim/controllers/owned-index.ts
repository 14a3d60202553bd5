/**
 * What a workload controller's informer keeps: the objects each owner controls (pods,
 * ControllerRevisions), by the owner's uid, fed by a watch; and the status write it makes
 * only when something changed.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerOf } from "../../protocol/kube/owner.ts";
import type { Cluster, ClusterEvent } from "../contract.ts";
import { ignoreNotFound, keyOf, obj, type Obj } from "./runtime.ts";

/** The objects each owner of one kind controls. */
export class OwnedIndex {
  readonly #byOwner = new Map<string, Map<string, KubeObject>>();
  readonly #ownerKind: string;

  constructor(ownerKind: string) {
    this.#ownerKind = ownerKind;
  }

  /** Records an event of a controlled object; returns the owner's `namespace/name` when the owner is of our kind. */
  observe(event: ClusterEvent): string | undefined {
    const owner = controllerOf(event.object);
    if (owner?.kind !== this.#ownerKind) return undefined;
    let children = this.#byOwner.get(owner.uid);
    if (!children) this.#byOwner.set(owner.uid, (children = new Map()));
    if (event.type === "DELETED") children.delete(keyOf(event.object));
    else children.set(keyOf(event.object), event.object);
    return `${event.object.metadata.namespace ?? ""}/${owner.name}`;
  }

  /** Drops what a deleted owner controlled (the garbage collector deletes the objects). */
  forget(ownerUid: string): void {
    this.#byOwner.delete(ownerUid);
  }

  of(ownerUid: string): KubeObject[] {
    return [...(this.#byOwner.get(ownerUid)?.values() ?? [])];
  }
}

/** Patches the status subresource when a field differs from the stored status (null: an `omitempty` field absent). */
export async function writeStatusIfChanged(cluster: Cluster, type: { apiVersion: string; kind: string }, object: KubeObject, status: Obj): Promise<void> {
  const before = obj((object as Obj).status);
  if (!Object.entries(status).some(([k, v]) => (before[k] ?? null) !== v)) return;
  await ignoreNotFound(cluster.patch(type, object.metadata.namespace, object.metadata.name ?? "", { status }, "merge", { subresource: "status" }));
}
