/**
 * The autonomy reconcile, keyed by Node: its children are the pods bound to it, its
 * related objects the nodes of its pool. It decides
 * - a merge patch per pod whose not-ready/unreachable tolerations (and kept originals)
 *   differ from what the node wants, at the pod's resourceVersion;
 * - one Warning Event per node and value for an `autonomy-duration` that does not parse;
 * - the node's two markers, each changed by one node patch with its Event recorded only
 *   if the patch was applied: `autonomy.edgeloop.dev/pool-outage` while its whole pool is
 *   down (`PoolOutage` / `PoolRecovered`), and `autonomy.edgeloop.dev/cache-failed`
 *   while the edge hub's cache fails (`AutonomyCacheFailed` / `AutonomyCacheRecovered`:
 *   a snapshot holds no past status, so the marker is what tells a recovery from a node
 *   whose cache never failed);
 * - a look again in 5 s while it is an edge node that is NotReady, so that its pool
 *   going down as a whole (seen only in its peers) or coming back is seen within 5 s.
 */
import type { KubeObject, ReconcileRequest } from "../../../protocol/index.ts";
import { refOf } from "../../../protocol/index.ts";
import type { Claim, Decided, Decision } from "../../kit/controller.ts";
import { eventOn } from "../../kit/actions.ts";
import { shortHash } from "../../kit/hash.ts";
import { isTerminating } from "../../kit/owner.ts";
import { AUTONOMY_CONDITION } from "./names.ts";
import { autonomyOf, cacheFailed, cacheMessage, isEdgeNode, isReady } from "./node-autonomy.ts";
import { poolDown, poolOf } from "./pools.ts";
import { NODE_KEY, POD_KEY, boundNodeOf, targetFor } from "./target.ts";
import { tolerationChange, tolerationMergePatch, type Target } from "./tolerations.ts";

/** Node annotation: since when (RFC 3339, as first seen) every node of its pool is NotReady or unreachable. */
export const POOL_OUTAGE = "autonomy.edgeloop.dev/pool-outage";
/** Node annotation: since when (the `Autonomy` condition's lastTransitionTime) the edge hub reports its cache failed. */
export const CACHE_FAILED = "autonomy.edgeloop.dev/cache-failed";
/** How long the claim of a once-only Event holds. */
export const EVENT_CLAIM_TTL_SECONDS = 86_400;
/** How soon a NotReady edge node is looked at again. */
export const NOT_READY_REQUEUE_SECONDS = 5;

/** One node marker to write (`null`: remove) and the Event telling of it. */
interface Marker {
  readonly annotation: string;
  readonly value: string | null;
  readonly event: Decided;
}

/** How many of a node's pod patches the relay applies at once. */
export const PATCH_CONCURRENCY = 16;

/** The decision for one node: pod patches, the node's Events and markers, and when to look again. */
export function reconcileNode(request: ReconcileRequest): Decision {
  const node = request.parent;
  if (node === null) return { actions: [] };
  const peers = request.related[NODE_KEY] ?? [];
  const target = targetFor(node, peers);
  const actions = [...durationEvents(node), ...podPatches(podsOf(request, node), target), ...markerPatch(node, [poolMarker(node, peers, request.now), cacheMarker(node, request.now)])];
  // The pod patches are independent of each other: the relay applies them 16 at a time.
  const base = { actions, concurrency: PATCH_CONCURRENCY };
  return isEdgeNode(node) && !isReady(node) ? { ...base, requeueAfterSeconds: NOT_READY_REQUEUE_SECONDS } : base;
}

/** The prefix of every claim about this node (its incarnation, else its name). */
function claimPrefix(node: KubeObject): string {
  return `autonomy/${node.metadata.uid ?? node.metadata.name ?? ""}`;
}

function claim(node: KubeObject, what: string): Claim {
  return { key: `${claimPrefix(node)}/${what}`, ttlSeconds: EVENT_CLAIM_TTL_SECONDS };
}

/** The Warning Event of a duration that does not parse, once per node and value (a day). */
function durationEvents(node: KubeObject): Decided[] {
  const autonomy = autonomyOf(node);
  if (autonomy.kind !== "invalid") return [];
  const message = `${autonomy.error}; the node is not autonomous (its pods keep their original tolerations) until the value is fixed`;
  return [eventOn(node, "Warning", "InvalidAutonomyDuration", message, claim(node, `invalid-duration/${shortHash(autonomy.value)}`))];
}

/** Whether a pod has run to its end (its tolerations no longer matter). */
function isFinished(pod: KubeObject): boolean {
  const status = pod["status"];
  const phase = typeof status === "object" && status !== null ? (status as Record<string, unknown>)["phase"] : undefined;
  return phase === "Succeeded" || phase === "Failed";
}

/** The pods bound to the node whose tolerations still matter (not finished, not being deleted). */
function podsOf(request: ReconcileRequest, node: KubeObject): KubeObject[] {
  return (request.children[POD_KEY] ?? []).filter((pod) => boundNodeOf(pod) === node.metadata.name && !isTerminating(pod) && !isFinished(pod));
}

/** A merge patch per pod that differs from `target`, only at the resourceVersion it was decided on. */
function podPatches(pods: readonly KubeObject[], target: Target): Decided[] {
  return pods.flatMap((pod): Decided[] => {
    const change = tolerationChange(pod, target);
    if (change === undefined) return [];
    const resourceVersion = pod.metadata.resourceVersion;
    return [{ type: "patch", target: refOf(pod), patch: tolerationMergePatch(pod, change), ...(resourceVersion ? { resourceVersion } : {}) }];
  });
}

/** The pool marker's change: set when the whole pool is down and it is absent, removed when it is present and the pool is not. */
function poolMarker(node: KubeObject, peers: readonly KubeObject[], now: string): Marker | undefined {
  const down = poolDown(node, peers);
  const marked = node.metadata.annotations?.[POOL_OUTAGE] !== undefined;
  const pool = poolOf(node) ?? "(none)";
  if (down && !marked) {
    const kept = autonomyOf(node).kind === "on" ? "its pods are kept and their endpoints stay until one node is back" : "this node is not autonomous: its pods are not kept";
    return { annotation: POOL_OUTAGE, value: now, event: eventOn(node, "Warning", "PoolOutage", `every node of pool ${pool} is NotReady or unreachable: ${kept}`) };
  }
  if (!down && marked) return { annotation: POOL_OUTAGE, value: null, event: eventOn(node, "Normal", "PoolRecovered", `pool ${pool} is no longer down as a whole: the node's own autonomy duration applies again`) };
  return undefined;
}

/** The `Autonomy` condition's lastTransitionTime, if any. */
function cacheTransition(node: KubeObject): string | undefined {
  const status = node["status"];
  const conditions = typeof status === "object" && status !== null ? (status as Record<string, unknown>)["conditions"] : undefined;
  if (!Array.isArray(conditions)) return undefined;
  const found = conditions.find((c: unknown) => typeof c === "object" && c !== null && (c as Record<string, unknown>)["type"] === AUTONOMY_CONDITION) as Record<string, unknown> | undefined;
  const at = found?.["lastTransitionTime"];
  return typeof at === "string" && at !== "" ? at : undefined;
}

/** The cache marker's change: set when the `Autonomy` condition is Unknown and it is absent, removed once it is not. Each Event once per transition. */
function cacheMarker(node: KubeObject, now: string): Marker | undefined {
  const failed = cacheFailed(node);
  const since = node.metadata.annotations?.[CACHE_FAILED];
  const transition = cacheTransition(node);
  if (failed && since === undefined) {
    const message = `the edge hub reports its cache failed (${cacheMessage(node) || "no detail"}): the node's pods may not survive an outage, and autonomy-duration cannot be set or changed until it recovers`;
    return { annotation: CACHE_FAILED, value: transition ?? now, event: eventOn(node, "Warning", "AutonomyCacheFailed", message, claim(node, `cache-failed/${transition ?? ""}`)) };
  }
  if (!failed && since !== undefined) {
    const event = eventOn(node, "Normal", "AutonomyCacheRecovered", `the edge hub's cache works again (failed since ${since})`, claim(node, `cache-recovered/${transition ?? since}`));
    return { annotation: CACHE_FAILED, value: null, event };
  }
  return undefined;
}

/** An Event recorded only if the action before it was applied. */
function reporting(event: Decided): Decided {
  return event.type === "event" ? { ...event, ifPreviousApplied: true } : event;
}

/** One node patch writing the markers that change, at the node's resourceVersion, then their Events. */
function markerPatch(node: KubeObject, markers: readonly (Marker | undefined)[]): Decided[] {
  const changed = markers.filter((marker): marker is Marker => marker !== undefined);
  if (changed.length === 0) return [];
  const annotations = Object.fromEntries(changed.map((marker) => [marker.annotation, marker.value]));
  const resourceVersion = node.metadata.resourceVersion;
  const patch: Decided = { type: "patch", target: refOf(node), patch: { metadata: { annotations } }, ...(resourceVersion ? { resourceVersion } : {}) };
  return [patch, ...changed.map((marker) => reporting(marker.event))];
}
