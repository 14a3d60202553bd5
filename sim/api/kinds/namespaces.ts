/**
 * core/v1 Namespace, as the namespace registry has it: a first delete only starts
 * termination (phase Terminating); the object goes once `spec.finalizers` is emptied
 * through the `finalize` subresource, which the namespace controller writes once the
 * namespace is empty. (What NamespaceLifecycle refuses is an admission step:
 * sim/api/admission/namespace-lifecycle.ts.)
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { DeleteOptions } from "../../contract.ts";
import { defaultNamespace, defaultNamespaceUpdate } from "../../pipeline/defaults.ts";
import { dnsLabelName } from "../../../protocol/kube/names.ts";
import { asObj, timestamp, type Obj } from "../objects.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

/** `spec.finalizers` of a namespace: what its deletion still waits for. */
function specFinalizers(namespace: KubeObject): string[] {
  const finalizers = asObj((namespace as Obj).spec).finalizers;
  return Array.isArray(finalizers) ? finalizers.map(String) : [];
}

/**
 * The first delete of a namespace: a deletionTimestamp, phase Terminating, and the
 * `orphan`/`foregroundDeletion` finalizer the propagation policy asks for. Nothing is
 * removed yet: the namespace controller empties it, then finalizes it.
 */
function markTerminating(namespace: KubeObject, now: Date, policy: DeleteOptions["propagationPolicy"]): KubeObject {
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
function finalizeDraft(current: KubeObject, incoming: KubeObject): KubeObject {
  const spec = asObj((current as Obj).spec);
  return { ...current, spec: { ...spec, finalizers: specFinalizers(incoming) } } as KubeObject;
}

/** An update of a namespace keeps its `spec.finalizers` (only `finalize` changes them). */
function keepSpecFinalizers(draft: KubeObject, current: KubeObject): KubeObject {
  const finalizers = asObj((current as Obj).spec).finalizers;
  const spec = asObj((draft as Obj).spec);
  const { finalizers: _dropped, ...rest } = spec;
  return { ...draft, spec: finalizers === undefined ? rest : { ...rest, finalizers } } as KubeObject;
}

/** On create, a namespace always gets the `kubernetes` finalizer (the namespace strategy's PrepareForCreate). */
function withKubernetesFinalizer(namespace: KubeObject): KubeObject {
  const finalizers = specFinalizers(namespace);
  if (finalizers.includes("kubernetes")) return namespace;
  return { ...namespace, spec: { ...asObj((namespace as Obj).spec), finalizers: [...finalizers, "kubernetes"] } } as KubeObject;
}

/** Namespaces. */
export const NAMESPACE: BuiltinKind = builtinKind(
  { group: "", version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false, shortNames: ["ns"], status: true, fields: ["status.phase"], extra: ["finalize"] },
  {
    nameRule: dnsLabelName,
    defaultCreate: (namespace) => withKubernetesFinalizer(defaultNamespace(namespace)),
    keepOnUpdate: keepSpecFinalizers,
    defaultUpdate: defaultNamespaceUpdate,
    finalize: finalizeDraft,
    delete: (namespace, options, now) => (namespace.metadata.deletionTimestamp ? { type: "NONE", object: namespace } : { type: "MODIFIED", object: markTerminating(namespace, now(), options.propagationPolicy) }),
    // ShouldDeleteNamespaceDuringUpdate: a namespace goes once its spec.finalizers are emptied too.
    removableOnUpdate: (namespace) => specFinalizers(namespace).length === 0,
  },
);
