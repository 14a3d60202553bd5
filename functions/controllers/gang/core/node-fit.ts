/**
 * Whether a pod may go on a node, resources apart: `spec.nodeSelector`, required node
 * affinity, taints and tolerations, cordoned and NotReady nodes, with Kubernetes'
 * semantics (kube-scheduler's NodeAffinity, TaintToleration and NodeUnschedulable
 * filters). Pod and node are parsed once into the records below; the check itself reads
 * only those.
 */
import { matchesNodeSelectorTerms, type NodeSelectorRequirement, type NodeSelectorTerm } from "../../../../protocol/kube/selectors.ts";
import { taintTolerated, type Taint as KubeTaint, type Toleration as KubeToleration } from "../../../../protocol/kube/taints.ts";
import { asArray, asObject, asString, asStringMap, dig } from "./read.ts";

/** A pod toleration, its fields read as strings ("" when absent); `operator` defaults to Equal. */
export interface Toleration extends KubeToleration {
  readonly key: string;
  readonly operator: string;
  readonly value: string;
  readonly effect: string;
}

/** A node taint that keeps pods off (NoSchedule or NoExecute; PreferNoSchedule is only a preference and is not kept). */
export interface Taint extends KubeTaint {
  readonly value: string;
}

/** Where a pod may go, as parsed from its spec. */
export interface Constraints {
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Required node affinity terms (ORed), or undefined when the pod sets none. */
  readonly terms: readonly NodeSelectorTerm[] | undefined;
  readonly tolerations: readonly Toleration[];
  /** A canonical text of the above: pods with equal keys fit the same nodes (used to cache feasibility). */
  readonly key: string;
}

/** What the fit check reads of a node. */
export interface NodeFacts {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /** `spec.unschedulable` (cordoned). */
  readonly unschedulable: boolean;
  /** The Ready condition is True. */
  readonly ready: boolean;
}

/** Why a node does not take a pod. `text` is the same for every node failing the same way, so failures can be counted. */
export interface FitFailure {
  readonly kind: "not-ready" | "unschedulable" | "node-selector" | "node-affinity" | "taint";
  readonly text: string;
}

/** The taint kube-scheduler treats a cordoned node as having. */
export const UNSCHEDULABLE_TAINT: Taint = { key: "node.kubernetes.io/unschedulable", value: "", effect: "NoSchedule" };
/** Taints with this prefix are set and cleared by Kubernetes itself (not-ready, unreachable, pressure...): transient. */
const LIFECYCLE_TAINT_PREFIX = "node.kubernetes.io/";

function requirements(value: unknown): NodeSelectorRequirement[] {
  return asArray(value).map((item) => ({
    key: asString(dig(item, "key")) ?? "",
    operator: asString(dig(item, "operator")) ?? "",
    values: asArray(dig(item, "values")).filter((v): v is string => typeof v === "string"),
  }));
}

/** A pod's placement constraints. */
export function podConstraints(pod: unknown): Constraints {
  const spec = asObject(dig(pod, "spec"));
  const nodeSelector = asStringMap(spec?.["nodeSelector"]);
  const required = asObject(dig(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"));
  const terms = required === undefined ? undefined : asArray(required["nodeSelectorTerms"]).map((term) => ({ matchExpressions: requirements(dig(term, "matchExpressions")), matchFields: requirements(dig(term, "matchFields")) }));
  const tolerations = asArray(spec?.["tolerations"]).map((item) => ({
    key: asString(dig(item, "key")) ?? "",
    operator: asString(dig(item, "operator")) || "Equal",
    value: asString(dig(item, "value")) ?? "",
    effect: asString(dig(item, "effect")) ?? "",
  }));
  return { nodeSelector, terms, tolerations, key: JSON.stringify([nodeSelector, terms ?? null, tolerations]) };
}

/** What the fit check needs of a node. */
export function nodeFacts(node: unknown): NodeFacts {
  const taints = asArray(dig(node, "spec", "taints"))
    .map((item) => ({ key: asString(dig(item, "key")) ?? "", value: asString(dig(item, "value")) ?? "", effect: asString(dig(item, "effect")) ?? "" }))
    .filter((taint) => taint.effect === "NoSchedule" || taint.effect === "NoExecute");
  const ready = asArray(dig(node, "status", "conditions")).some((c) => asString(dig(c, "type")) === "Ready" && asString(dig(c, "status")) === "True");
  return {
    name: asString(dig(node, "metadata", "name")) ?? "",
    labels: asStringMap(dig(node, "metadata", "labels")),
    taints,
    unschedulable: dig(node, "spec", "unschedulable") === true,
    ready,
  };
}


/**
 * Why `node` may not take a pod with `constraints`, or undefined when it may. With
 * `transient: false` only what lasts is checked (labels, affinity, taints other than
 * Kubernetes' own `node.kubernetes.io/*` ones): a NotReady or cordoned node still counts,
 * as it does when deciding whether a group could ever fit.
 */
export function checkNode(constraints: Constraints, node: NodeFacts, transient = true): FitFailure | undefined {
  if (transient && !node.ready) return { kind: "not-ready", text: "node is not Ready" };
  if (transient && node.unschedulable && !taintTolerated(constraints.tolerations, UNSCHEDULABLE_TAINT)) return { kind: "unschedulable", text: "node is unschedulable (cordoned)" };
  for (const [key, want] of Object.entries(constraints.nodeSelector)) {
    if (node.labels[key] !== want) return { kind: "node-selector", text: "node didn't match the pod's nodeSelector" };
  }
  if (constraints.terms !== undefined && !matchesNodeSelectorTerms(node, constraints.terms)) return { kind: "node-affinity", text: "node didn't match the pod's required node affinity" };
  for (const taint of node.taints) {
    if (!transient && taint.key.startsWith(LIFECYCLE_TAINT_PREFIX)) continue;
    if (!taintTolerated(constraints.tolerations, taint)) return { kind: "taint", text: `node had untolerated taint {${taint.key}${taint.value === "" ? "" : `=${taint.value}`}:${taint.effect}}` };
  }
  return undefined;
}
