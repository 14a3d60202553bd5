/**
 * What a node says of its autonomy: whether it is an edge node, whether and for how long
 * its pods survive its outage, whether its annotation is broken, whether the edge hub's
 * cache failed, and since when it is NotReady. Pure reads of a Node object.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { DURATION_HINT, parseGoDuration, tolerationSecondsOf } from "./duration.ts";
import { AUTONOMY_BETA, AUTONOMY_CONDITION, AUTONOMY_DURATION, EDGE_WORKER, POD_BINDING } from "./names.ts";

/**
 * A node's autonomy:
 * - `not-edge`: no `openyurt.io/is-edge-worker: "true"` label; nothing applies.
 * - `off`: an edge node with no autonomy annotation (or a deprecated one not `"true"`).
 * - `invalid`: `autonomy-duration` does not parse (set before the webhook refused such
 *   values): treated as not autonomous, and reported.
 * - `on`: autonomous; `seconds` is the pods' tolerationSeconds, `undefined` for forever.
 */
export type NodeAutonomy =
  | { readonly kind: "not-edge" }
  | { readonly kind: "off" }
  | { readonly kind: "invalid"; readonly value: string; readonly error: string }
  | { readonly kind: "on"; readonly seconds: number | undefined; readonly source: "duration" | "deprecated" };

type Obj = Readonly<Record<string, unknown>>;

function record(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

/** A node's annotations (strings only). */
function annotationsOf(node: KubeObject): Readonly<Record<string, string>> {
  return node.metadata.annotations ?? {};
}

/** Whether the node is an edge node. */
export function isEdgeNode(node: KubeObject): boolean {
  return node.metadata.labels?.[EDGE_WORKER] === "true";
}

/** The autonomy the node's labels and annotations declare (`autonomy-duration` first, then the deprecated `"true"` annotations). */
export function autonomyOf(node: KubeObject): NodeAutonomy {
  if (!isEdgeNode(node)) return { kind: "not-edge" };
  const annotations = annotationsOf(node);
  const duration = annotations[AUTONOMY_DURATION];
  if (duration !== undefined) {
    const parsed = parseGoDuration(duration);
    if (!parsed.ok) return { kind: "invalid", value: duration, error: `${AUTONOMY_DURATION}: ${parsed.error}` };
    return { kind: "on", seconds: tolerationSecondsOf(parsed.nanoseconds), source: "duration" };
  }
  if (annotations[AUTONOMY_BETA] === "true" || annotations[POD_BINDING] === "true") return { kind: "on", seconds: undefined, source: "deprecated" };
  return { kind: "off" };
}

/** Why a duration value is refused, or `undefined` when it is valid. */
export function durationError(value: string): string | undefined {
  const parsed = parseGoDuration(value);
  return parsed.ok ? undefined : `${AUTONOMY_DURATION}: ${parsed.error}`;
}

export { DURATION_HINT };

/** The node's condition of `type`, if any. */
function condition(node: KubeObject, type: string): Obj | undefined {
  const conditions = record((node as { status?: unknown }).status)["conditions"];
  return Array.isArray(conditions) ? conditions.map(record).find((c) => c["type"] === type) : undefined;
}

/** Whether the node is Ready (its Ready condition is `True`). */
export function isReady(node: KubeObject): boolean {
  return condition(node, "Ready")?.["status"] === "True";
}

/**
 * Since when the node is NotReady or unreachable (its Ready condition's last transition,
 * ms since the epoch); `undefined` while it is Ready, or when it says nothing readable.
 */
export function notReadySince(node: KubeObject): number | undefined {
  const ready = condition(node, "Ready");
  if (ready === undefined || ready["status"] === "True") return undefined;
  const at = Date.parse(typeof ready["lastTransitionTime"] === "string" ? ready["lastTransitionTime"] : "");
  return Number.isFinite(at) ? at : undefined;
}

/** Whether the edge hub reports its cache failed (`Autonomy` condition `Unknown`). */
export function cacheFailed(node: KubeObject): boolean {
  return condition(node, AUTONOMY_CONDITION)?.["status"] === "Unknown";
}

/** The `Autonomy` condition's message (the failing cache keys), if any. */
export function cacheMessage(node: KubeObject): string {
  const message = condition(node, AUTONOMY_CONDITION)?.["message"];
  return typeof message === "string" ? message : "";
}

/**
 * Whether the node's autonomy period has run out at `now`: it is autonomous for a finite
 * time and has been NotReady for at least that long. An unknown start counts as run out
 * (nothing says the period is still on).
 */
export function periodRunOut(autonomy: NodeAutonomy, node: KubeObject, now: number): boolean {
  if (autonomy.kind !== "on" || autonomy.seconds === undefined) return false;
  const since = notReadySince(node);
  return since === undefined || now - since >= autonomy.seconds * 1000;
}
