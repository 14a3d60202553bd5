/**
 * A pod's required node affinity as the scheduler's NodeAffinity plugin reads it:
 * `nodeSelector` and `requiredDuringSchedulingIgnoredDuringExecution` node selector terms
 * (ORed; their matchExpressions on labels and matchFields on `metadata.name` ANDed).
 * Pure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { matchesNodeSelectorTerms, type NodeSelectorRequirement } from "../../protocol/kube/selectors.ts";
import { arr, obj, type Obj } from "./runtime.ts";

/** The required node selector terms of a pod, if it has any. */
function requiredTerms(pod: KubeObject): Obj[] | undefined {
  const required = obj(obj(obj(obj((pod as Obj).spec).affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution);
  return Array.isArray(required.nodeSelectorTerms) ? arr(required.nodeSelectorTerms) : undefined;
}

/** A term's requirements as strings, whatever the stored JSON holds. */
function requirementsOf(value: unknown): NodeSelectorRequirement[] {
  return arr(value).map((r) => ({ key: String(r.key), operator: String(r.operator), values: Array.isArray(r.values) ? r.values.map(String) : [] }));
}

/** Whether the node matches the pod's nodeSelector and required node affinity. */
export function matchesNodeAffinity(pod: KubeObject, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  if (Object.entries(obj(obj((pod as Obj).spec).nodeSelector)).some(([k, v]) => labels[k] !== v)) return false;
  const terms = requiredTerms(pod);
  const selected = { name: node.metadata.name ?? "", labels };
  return terms === undefined || matchesNodeSelectorTerms(selected, terms.map((term) => ({ matchExpressions: requirementsOf(term.matchExpressions), matchFields: requirementsOf(term.matchFields) })));
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
