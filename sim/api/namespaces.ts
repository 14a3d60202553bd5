/**
 * The namespace lifecycle rules of kube-apiserver: the namespace registry (a first delete
 * only starts termination; the object goes once `spec.finalizers` is emptied through the
 * `finalize` subresource) and the NamespaceLifecycle admission plugin (no deleting the
 * immortal namespaces, no new content in a terminating one).
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { ApiError, DeleteOptions } from "../contract.ts";
import { forbidden, qualified } from "../pipeline/errors.ts";
import type { ResourceType } from "../registry/resource.ts";
import { asObj, timestamp, type Obj } from "./objects.ts";

/** The namespaces NamespaceLifecycle refuses to delete. */
export const IMMORTAL_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public"];

const NAMESPACES = { group: "", plural: "namespaces" };

/** Whether `resource` is core/v1 Namespace. */
export function isNamespace(resource: Pick<ResourceType, "group" | "kind">): boolean {
  return resource.group === "" && resource.kind === "Namespace";
}

/** `spec.finalizers` of a namespace: what its deletion still waits for. */
export function specFinalizers(namespace: KubeObject): string[] {
  const finalizers = asObj((namespace as Obj).spec).finalizers;
  return Array.isArray(finalizers) ? finalizers.map(String) : [];
}

/** Whether a namespace is terminating (the phase NamespaceLifecycle looks at). */
export function terminating(namespace: KubeObject): boolean {
  return asObj((namespace as Obj).status).phase === "Terminating" || Boolean(namespace.metadata.deletionTimestamp);
}

/**
 * The first delete of a namespace: a deletionTimestamp, phase Terminating, and the
 * `orphan`/`foregroundDeletion` finalizer the propagation policy asks for. Nothing is
 * removed yet: the namespace controller empties it, then finalizes it.
 */
export function markTerminating(namespace: KubeObject, now: Date, policy: DeleteOptions["propagationPolicy"]): KubeObject {
  const finalizers = new Set(namespace.metadata.finalizers ?? []);
  if (policy === "Orphan") finalizers.add("orphan");
  if (policy === "Foreground") finalizers.add("foregroundDeletion");
  if (policy === "Background") {
    finalizers.delete("orphan");
    finalizers.delete("foregroundDeletion");
  }
  const { finalizers: _old, ...meta } = namespace.metadata;
  return {
    ...namespace,
    metadata: { ...meta, deletionTimestamp: timestamp(now), ...(finalizers.size > 0 ? { finalizers: [...finalizers] } : {}) },
    status: { ...asObj((namespace as Obj).status), phase: "Terminating" },
  } as KubeObject;
}

/** PUT namespaces/{name}/finalize: only `spec.finalizers` changes. */
export function finalizeDraft(current: KubeObject, incoming: KubeObject): KubeObject {
  const spec = asObj((current as Obj).spec);
  return { ...current, spec: { ...spec, finalizers: specFinalizers(incoming) } } as KubeObject;
}

/** An update of a namespace keeps its `spec.finalizers` (only `finalize` changes them). */
export function keepSpecFinalizers(draft: KubeObject, current: KubeObject): KubeObject {
  const finalizers = asObj((current as Obj).spec).finalizers;
  const spec = asObj((draft as Obj).spec);
  const { finalizers: _dropped, ...rest } = spec;
  return { ...draft, spec: finalizers === undefined ? rest : { ...rest, finalizers } } as KubeObject;
}

/** On create, a namespace always gets the `kubernetes` finalizer (the namespace strategy's PrepareForCreate). */
export function withKubernetesFinalizer(namespace: KubeObject): KubeObject {
  const finalizers = specFinalizers(namespace);
  if (finalizers.includes("kubernetes")) return namespace;
  return { ...namespace, spec: { ...asObj((namespace as Obj).spec), finalizers: [...finalizers, "kubernetes"] } } as KubeObject;
}

/** 403 for deleting default, kube-system or kube-public. */
export function immortalError(name: string): ApiError {
  return forbidden(`${qualified(NAMESPACES)} "${name}" is forbidden: this namespace may not be deleted`, { name, group: "", kind: NAMESPACES.plural });
}

/** The name NamespaceLifecycle reports before name generation: the name, else the generateName, else "Unknown". */
function admissionName(object: KubeObject): string {
  return object.metadata.name || object.metadata.generateName || "Unknown";
}

/** 403 for creating in a terminating namespace, with the NamespaceTerminating cause. */
export function terminatingError(resource: Pick<ResourceType, "group" | "plural">, object: KubeObject, namespace: string): ApiError {
  const name = admissionName(object);
  return forbidden(`${qualified(resource)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
    name,
    group: resource.group,
    kind: resource.plural,
    causes: [{ reason: "NamespaceTerminating", message: `namespace ${namespace} is being terminated`, field: "metadata.namespace" }],
  });
}
