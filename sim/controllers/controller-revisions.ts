/**
 * apps/v1 ControllerRevisions as the DaemonSet and StatefulSet controllers keep them
 * (pkg/controller/history): one per pod template, named `<owner>-<hash>`, carrying the
 * template as the strategic merge patch `kubectl rollout undo` applies, numbered in the
 * order templates were last used. `kubectl rollout history ds/x` and `sts/x` list them.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerOf, controllerRef } from "../../protocol/kube/owner.ts";
import type { Cluster, ClusterEvent } from "../contract.ts";
import { ignoreNotFound, keyOf, obj, type Obj } from "./runtime.ts";

export const CONTROLLER_REVISION = { apiVersion: "apps/v1", kind: "ControllerRevision" };

/** The revision a ControllerRevision carries. */
export function revisionNumber(history: KubeObject): number {
  return Number((history as Obj).revision ?? 0);
}

/** The ControllerRevision of the owner's current template (`labelKey`: the hash label, which the DaemonSet and StatefulSet name differently). */
export function controllerRevision(owner: KubeObject, ownerType: { apiVersion: string; kind: string }, hash: string, labelKey: string, revision: number): KubeObject {
  const template = obj(obj((owner as Obj).spec).template);
  const labels = { ...(obj(obj(template.metadata).labels) as Record<string, string>), [labelKey]: hash };
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: { name: `${owner.metadata.name ?? ""}-${hash}`, namespace: owner.metadata.namespace, labels, ownerReferences: [controllerRef(owner, ownerType)] },
    data: { spec: { template: { $patch: "replace", ...template } } },
    revision,
  } as KubeObject;
}

/** The ControllerRevisions of each owner (by uid), fed by a watch. */
export class RevisionIndex {
  readonly #byOwner = new Map<string, Map<string, KubeObject>>();
  readonly #ownerKind: string;

  constructor(ownerKind: string) {
    this.#ownerKind = ownerKind;
  }

  /** Records a ControllerRevision event; returns the owner's `namespace/name` when it is one of ours. */
  observe(event: ClusterEvent): string | undefined {
    const owner = controllerOf(event.object);
    if (owner?.kind !== this.#ownerKind) return undefined;
    let revisions = this.#byOwner.get(owner.uid);
    if (!revisions) this.#byOwner.set(owner.uid, (revisions = new Map()));
    if (event.type === "DELETED") revisions.delete(keyOf(event.object));
    else revisions.set(keyOf(event.object), event.object);
    return `${event.object.metadata.namespace ?? ""}/${owner.name}`;
  }

  forget(ownerUid: string): void {
    this.#byOwner.delete(ownerUid);
  }

  of(ownerUid: string): KubeObject[] {
    return [...(this.#byOwner.get(ownerUid)?.values() ?? [])];
  }
}

/**
 * Makes the current template's ControllerRevision the newest: created with the next
 * number, or an older one (a rollback) renumbered past the others, as constructHistory.
 */
export async function recordRevision(cluster: Cluster, index: RevisionIndex, wanted: KubeObject, ownerUid: string): Promise<void> {
  const others = index.of(ownerUid);
  const existing = others.find((h) => h.metadata.name === wanted.metadata.name);
  const highest = Math.max(0, ...others.filter((h) => h !== existing).map(revisionNumber));
  if (!existing) {
    try {
      await cluster.create({ ...wanted, revision: highest + 1 } as KubeObject);
    } catch (error) {
      // Created meanwhile (the index has not seen it yet): the next sync renumbers it if needed.
      if (!(error instanceof Error && /already exists/.test(error.message))) throw error;
    }
    return;
  }
  if (revisionNumber(existing) <= highest) {
    await ignoreNotFound(cluster.patch(CONTROLLER_REVISION, existing.metadata.namespace, existing.metadata.name ?? "", { revision: highest + 1 }, "merge"));
  }
}
