/**
 * Owner references as Kubernetes reads them: the controller reference a child carries,
 * whether a child is controlled by an owner, and the walk up to the root owner that a
 * `root` delete takes. Pure: the walk reads each owner through the function it is given.
 */
import type { KubeObject, ObjectRef, OwnerReference } from "../objects.ts";
import { sameGroupKind } from "./api-version.ts";

/** What the functions below read of an object. */
interface Owned {
  readonly metadata: { readonly ownerReferences?: readonly OwnerReference[] | undefined };
}

/**
 * The controller ownerReference a child of `owner` carries (the garbage collector cascades
 * through it): `metav1.NewControllerRef`. `type` names the owner's kind at the version the
 * controller writes (by default the owner's own apiVersion and kind).
 */
export function controllerRef(owner: KubeObject, type: { readonly apiVersion: string; readonly kind: string } = owner): OwnerReference {
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    name: owner.metadata.name ?? "",
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The controller ownerReference of an object (`metav1.GetControllerOf`), if any. */
export function controllerOf(object: Owned): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** The controller ownerReference of an object when it names an owner of `type`: its kind and group, any version. */
export function controllerOfType(object: Owned, type: { readonly apiVersion: string; readonly kind: string }): OwnerReference | undefined {
  const ref = controllerOf(object);
  return ref !== undefined && sameGroupKind(ref, type) ? ref : undefined;
}

/** Whether the controller ownerReference of `child` names the owner with this uid (`metav1.IsControlledBy`). */
export function isControlledByUid(child: Owned, uid: string): boolean {
  return uid !== "" && controllerOf(child)?.uid === uid;
}

/**
 * Whether the controller ownerReference of `child` names exactly this owner incarnation:
 * its uid, its kind and its group (any version). An owner without a uid controls nothing.
 */
export function isControlledBy(child: Owned, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return uid !== undefined && uid !== "" && controllerOfType(child, owner)?.uid === uid;
}

/** The owner a walk up follows: the controller ownerReference, else the first one. */
export function ownerToFollow<R extends { readonly controller?: boolean | undefined }>(object: { readonly metadata: { readonly ownerReferences?: readonly R[] | undefined } }): R | undefined {
  const refs = object.metadata.ownerReferences ?? [];
  return refs.find((ref) => ref.controller === true) ?? refs[0];
}

/** Reads one object by reference: undefined when it is gone (or may not be read). */
export type ReadOwner = (ref: ObjectRef) => Promise<KubeObject | undefined>;

/**
 * The highest owner of `target` that still exists (the target itself when it has none),
 * following {@link ownerToFollow} up at most `maxDepth` levels, as the garbage collector
 * reads the same references downwards. An owner is in the child's namespace (Kubernetes
 * allows no cross-namespace owner); a reference whose uid names another incarnation than
 * the one found under its name ends the walk, as a gone one does.
 */
export async function rootOwner(target: ObjectRef, read: ReadOwner, maxDepth: number): Promise<ObjectRef> {
  let current = target;
  let last: ObjectRef | undefined;
  for (let depth = 0; depth <= maxDepth; depth += 1) {
    const object = await read(current);
    if (!object || (current.uid !== undefined && object.metadata.uid !== current.uid)) return last ?? target;
    last = { ...current, ...(object.metadata.uid ? { uid: object.metadata.uid } : {}) };
    const owner = ownerToFollow(object);
    if (!owner) return last;
    current = { apiVersion: owner.apiVersion, kind: owner.kind, ...(current.namespace ? { namespace: current.namespace } : {}), name: owner.name, uid: owner.uid };
  }
  return last ?? target;
}
