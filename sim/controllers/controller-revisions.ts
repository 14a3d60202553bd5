/**
 * apps/v1 ControllerRevisions as the DaemonSet and StatefulSet controllers keep them
 * (pkg/controller/history): one per pod template, named `<owner>-<hash>`, carrying the
 * template as the strategic merge patch `kubectl rollout undo` applies, numbered in the
 * order templates were last used. `kubectl rollout history ds/x` and `sts/x` list them.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerRef } from "../../protocol/kube/owner.ts";
import type { Cluster } from "../contract.ts";
import type { OwnedIndex } from "./owned-index.ts";
import { ignoreNotFound, obj, type Obj } from "./runtime.ts";

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

/**
 * Makes the current template's ControllerRevision the newest: created with the next
 * number, or an older one (a rollback) renumbered past the others, as constructHistory.
 */
export async function recordRevision(cluster: Cluster, index: OwnedIndex, wanted: KubeObject, ownerUid: string): Promise<void> {
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
