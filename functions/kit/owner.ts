import type { KubeObject, ReconcileRequest } from "../../protocol/index.ts";
import { isControlledBy } from "../../protocol/kube/owner.ts";

/** The children of one kind that this parent incarnation controls; anything else is not ours to touch. */
export function ownedChildren(request: ReconcileRequest, kindKey: string, parent: KubeObject): KubeObject[] {
  return (request.children[kindKey] ?? []).filter((child) => isControlledBy(child, parent));
}

/** Children of one kind, ours, that the triggers report deleted (their last state). */
export function deletedChildren(request: ReconcileRequest, kindKey: string, parent: KubeObject): KubeObject[] {
  return request.triggers
    .filter((t) => t.type === "DELETED" && t.kind === kindKey && isControlledBy(t.object, parent))
    .map((t) => t.object);
}

/** True while the object is being deleted (graceful or foreground). */
export function isTerminating(object: KubeObject): boolean {
  return object.metadata.deletionTimestamp !== undefined;
}
