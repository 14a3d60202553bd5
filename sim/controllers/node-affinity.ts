/**
 * A pod's required node affinity as the scheduler's NodeAffinity plugin reads it:
 * `nodeSelector` and `requiredDuringSchedulingIgnoredDuringExecution` node selector terms
 * (ORed; their matchExpressions on labels and matchFields on `metadata.name` ANDed).
 * Pure.
 */
import { requirementHolds, type KubeObject } from "../../protocol/index.ts";
import { arr, obj, type Obj } from "./runtime.ts";

/** The required node selector terms of a pod, if it has any. */
function requiredTerms(pod: KubeObject): Obj[] | undefined {
  const required = obj(obj(obj(obj((pod as Obj).spec).affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution);
  return Array.isArray(required.nodeSelectorTerms) ? arr(required.nodeSelectorTerms) : undefined;
}

/** One requirement (`key`, `operator`, `values`) against a value that is there or not. */
function holds(requirement: Obj, value: string | undefined): boolean {
  return requirementHolds(String(requirement.operator), Array.isArray(requirement.values) ? requirement.values.map(String) : [], value);
}

/** A term matches when all its requirements hold; an empty term matches nothing. */
function termMatches(term: Obj, node: KubeObject): boolean {
  const expressions = arr(term.matchExpressions);
  const fields = arr(term.matchFields);
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    expressions.every((r) => holds(r, Object.hasOwn(labels, String(r.key)) ? labels[String(r.key)] : undefined)) &&
    fields.every((r) => r.key === "metadata.name" && holds(r, node.metadata.name))
  );
}

/** Whether the node matches the pod's nodeSelector and required node affinity. */
export function matchesNodeAffinity(pod: KubeObject, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  if (Object.entries(obj(obj((pod as Obj).spec).nodeSelector)).some(([k, v]) => labels[k] !== v)) return false;
  const terms = requiredTerms(pod);
  return terms === undefined || terms.some((term) => termMatches(term, node));
}

/**
 * The node names a pod is pinned to by `matchFields` on `metadata.name` in every term
 * (the NodeAffinity PreFilter result, as DaemonSet pods carry), or undefined for any node.
 */
export function pinnedNodeNames(pod: KubeObject): Set<string> | undefined {
  const terms = requiredTerms(pod);
  if (!terms || terms.length === 0) return undefined;
  const names = new Set<string>();
  for (const term of terms) {
    const pins = arr(term.matchFields).filter((r) => r.key === "metadata.name" && r.operator === "In");
    if (pins.length === 0) return undefined;
    const sets = pins.map((r) => new Set(Array.isArray(r.values) ? r.values.map(String) : []));
    for (const name of sets[0] ?? []) if (sets.every((s) => s.has(name))) names.add(name);
  }
  return names;
}
