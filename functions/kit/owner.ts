import type { KubeObject, OwnerReference, ReconcileRequest } from "../../protocol/index.ts";

/** The controller ownerReference a child of `parent` carries (GC cascades through it). */
export function controllerRef(parent: KubeObject): OwnerReference {
  return {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    name: parent.metadata.name ?? "",
    uid: parent.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** True when `child`'s controller ownerReference names exactly this parent incarnation (kind and live uid). */
export function isControlledBy(child: KubeObject, parent: KubeObject): boolean {
  const uid = parent.metadata.uid;
  if (!uid) return false;
  return (child.metadata.ownerReferences ?? []).some(
    (ref) => ref.controller === true && ref.kind === parent.kind && ref.uid === uid && groupOf(ref.apiVersion) === groupOf(parent.apiVersion),
  );
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

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
