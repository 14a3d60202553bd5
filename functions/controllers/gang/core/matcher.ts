/**
 * Places a whole group or nothing. Pods go in decreasing order of their dominant request
 * (largest share of the biggest node in any resource), each to the candidate node with
 * the least room left after it (best fit, room summed over every resource scaled by the
 * biggest node, so a cpu-only pod keeps off a node with spare GPUs); if a pod finds no
 * node, the group is retried once with worst fit (most room left); if that fails too,
 * nothing is placed and the reason names the short resource.
 *
 * Cost: O(pods of the group × candidate nodes × dimensions) per attempt, at most two
 * attempts; no allocation in the inner loop. The free vector is used in place and
 * restored, so nothing is copied per attempt.
 */
import { candidatesFor, refusalText, type Candidates, type Feasibility } from "./feasible.ts";
import type { PendingGroup } from "./queue.ts";
import { plural, type WaitReason } from "./reason.ts";
import { formatAmount } from "./resources.ts";
import { give, take, toDense, type ClusterView } from "./view.ts";

/** A pod ready for matching. */
export interface MatchPod {
  readonly uid: string;
  /** Its request over the view's dimensions. */
  readonly request: Float64Array;
  readonly candidates: Candidates;
  /** A resource it requests that no node of the view offers. */
  readonly missing: string | undefined;
  /** Its dominant share: the largest request / biggest node ratio over the dimensions. */
  readonly weight: number;
}

/** A group ready for matching: pods sorted by decreasing weight, then uid. */
export interface MatchGroup {
  readonly key: string;
  readonly pods: readonly MatchPod[];
  /** Equal shapes are the same matching problem (same requests, same candidates, same order). */
  readonly shape: string;
}

/** The outcome: every pod's node, or why the group waits. */
export type MatchResult = { readonly placed: Map<string, string> } | { readonly waits: WaitReason };

/** Which node a pod takes among those with room. */
export type Strategy = "best-fit" | "worst-fit";

/** Prepares a group for matching on the cache's view. O(pods × dimensions), plus O(nodes) per constraints key not seen yet in the pass. */
export function compileGroup(cache: Feasibility, group: Pick<PendingGroup, "key" | "pods">): MatchGroup {
  const { dims, scale } = cache.view;
  const pods = group.pods.map((pod): MatchPod => {
    const { vector, missing } = toDense(dims, pod.request);
    let weight = 0;
    for (let d = 0; d < dims.length; d += 1) weight = Math.max(weight, (vector[d] ?? 0) / (scale[d] ?? 1));
    return { uid: pod.uid, request: vector, candidates: candidatesFor(cache, pod.constraints), missing, weight };
  });
  pods.sort((a, b) => b.weight - a.weight || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  const shape = pods.map((pod) => `${pod.candidates.id}:${pod.request.join(",")}:${pod.missing ?? ""}`).join(";");
  return { key: group.key, pods, shape };
}

/**
 * Tries one strategy on `free`. On success the group's requests are taken from `free` and
 * the node index of every pod (in `group.pods` order) is returned; on failure `free` is
 * left as it was and the index of the first pod that found no node is returned.
 */
export function placeWith(view: ClusterView, group: MatchGroup, free: Float64Array, strategy: Strategy, ever = false): Int32Array | number {
  const width = view.dims.length;
  const inverse = view.scale.map((s) => 1 / s);
  const assigned = new Int32Array(group.pods.length);
  const best = strategy === "best-fit";
  for (let i = 0; i < group.pods.length; i += 1) {
    const pod = group.pods[i] as MatchPod;
    const chosen = pod.missing === undefined ? chooseNode(free, width, inverse, pod.request, ever ? pod.candidates.ever : pod.candidates.now, best) : -1;
    if (chosen < 0) {
      for (let j = 0; j < i; j += 1) give(free, width, assigned[j] ?? 0, (group.pods[j] as MatchPod).request);
      return i;
    }
    take(free, width, chosen, pod.request);
    assigned[i] = chosen;
  }
  return assigned;
}

/** The node with room for `request` and the least (best fit) or most (worst fit) scaled room left, lowest index on ties; -1 if none. */
function chooseNode(free: Float64Array, width: number, inverse: Float64Array, request: Float64Array, nodes: Int32Array, best: boolean): number {
  let chosen = -1;
  let chosenScore = best ? Infinity : -Infinity;
  for (let k = 0; k < nodes.length; k += 1) {
    const node = nodes[k] as number;
    const base = node * width;
    let score = 0;
    let fits = true;
    for (let d = 0; d < width; d += 1) {
      const need = request[d] as number;
      const left = (free[base + d] as number) - need;
      if (need > 0 && left < 0) {
        fits = false;
        break;
      }
      score += left * (inverse[d] as number);
    }
    if (fits && (best ? score < chosenScore : score > chosenScore)) {
      chosen = node;
      chosenScore = score;
    }
  }
  return chosen;
}

/** Node indices as a map pod uid → node name. */
export function placements(view: ClusterView, group: MatchGroup, assigned: Int32Array): Map<string, string> {
  const placed = new Map<string, string>();
  group.pods.forEach((pod, i) => placed.set(pod.uid, view.nodes[assigned[i] ?? 0]?.name ?? ""));
  return placed;
}

/**
 * Places the whole group on `free`, best fit then worst fit: on success its requests are
 * taken from `free` and every pod's node index (in `group.pods` order) is returned; on
 * failure `free` is unchanged and the reason is returned.
 */
export function tryPlace(view: ClusterView, group: MatchGroup, free: Float64Array): { readonly assigned: Int32Array } | { readonly waits: WaitReason } {
  const first = placeWith(view, group, free, "best-fit");
  if (typeof first !== "number") return { assigned: first };
  const second = placeWith(view, group, free, "worst-fit");
  if (typeof second !== "number") return { assigned: second };
  return { waits: explainWait(view, group, free, first) };
}

/** Places the whole group on `free` (default: the view's) without changing it: every pod's node name, or why it waits. */
export function matchGroup(view: ClusterView, group: MatchGroup, free: Float64Array = view.free): MatchResult {
  const outcome = tryPlace(view, group, free);
  if ("waits" in outcome) return outcome;
  group.pods.forEach((pod, i) => give(free, view.dims.length, outcome.assigned[i] ?? 0, pod.request));
  return { placed: placements(view, group, outcome.assigned) };
}

/**
 * Whether the group could fit on the empty cluster: allocatable only, usage ignored, only
 * lasting constraints (labels, affinity, taints other than Kubernetes' own lifecycle
 * taints; NotReady and cordoned nodes count). False means unsatisfiable: reject it.
 */
export function fitsEver(group: MatchGroup, view: ClusterView): boolean {
  const empty = view.allocatable.slice();
  return typeof placeWith(view, group, empty, "best-fit", true) !== "number" || typeof placeWith(view, group, empty, "worst-fit", true) !== "number";
}

/** Why the group does not fit on `free`; `failed` is the pod best fit stopped at. */
export function explainWait(view: ClusterView, group: MatchGroup, free: Float64Array, failed: number): WaitReason {
  const missing = group.pods.filter((pod) => pod.missing !== undefined);
  if (missing.length > 0) {
    const resource = missing[0]?.missing ?? "";
    return { kind: "resources", resource, short: 0, pods: missing.length, nodes: 0, text: `${resource}: ${plural(missing.length, "pod")} ${missing.length === 1 ? "requests" : "request"} it and no node offers it` };
  }
  const stranded = group.pods.filter((pod) => pod.candidates.now.length === 0);
  if (stranded.length > 0) {
    const text = `${plural(stranded.length, "pod")} fit no node: ${refusalText(view.nodes.length, (stranded[0] as MatchPod).candidates)}`;
    return { kind: "constraints", resource: undefined, short: 0, pods: stranded.length, nodes: view.nodes.length, text };
  }
  return aggregateShortage(view, group, free) ?? fragmentation(view, group.pods[failed] ?? (group.pods[0] as MatchPod), group, free);
}

/** The resource most short in total over every candidate node of the group, if any is. */
function aggregateShortage(view: ClusterView, group: MatchGroup, free: Float64Array): WaitReason | undefined {
  const width = view.dims.length;
  const union = new Uint8Array(view.nodes.length);
  for (const pod of group.pods) for (const node of pod.candidates.now) union[node] = 1;
  const have = new Float64Array(width);
  let nodes = 0;
  union.forEach((member, node) => {
    if (member === 0) return;
    nodes += 1;
    for (let d = 0; d < width; d += 1) have[d] = (have[d] ?? 0) + Math.max(0, free[node * width + d] ?? 0);
  });
  let worst = -1;
  let worstRatio = 0;
  let worstShort = 0;
  for (let d = 0; d < width; d += 1) {
    const need = group.pods.reduce((sum, pod) => sum + (pod.request[d] ?? 0), 0);
    const short = need - (have[d] ?? 0);
    if (short > 0 && short / (view.scale[d] ?? 1) > worstRatio) [worst, worstRatio, worstShort] = [d, short / (view.scale[d] ?? 1), short];
  }
  if (worst < 0) return undefined;
  const resource = view.dims[worst] ?? "";
  const pods = group.pods.filter((pod) => (pod.request[worst] ?? 0) > 0).length;
  return { kind: "resources", resource, short: worstShort, pods, nodes, text: `${resource}: ${plural(pods, "pod")} ${pods === 1 ? "needs" : "need"} ${formatAmount(resource, worstShort)} more on ${plural(nodes, "candidate node")}` };
}

/** Enough in total but not where needed: how far the failing pod is from its nearest candidate node. */
function fragmentation(view: ClusterView, pod: MatchPod, group: MatchGroup, free: Float64Array): WaitReason {
  const width = view.dims.length;
  const nodes = pod.candidates.now;
  let nearest = -1;
  let nearestGap = Infinity;
  for (const node of nodes) {
    let gap = 0;
    for (let d = 0; d < width; d += 1) gap += Math.max(0, (pod.request[d] ?? 0) - (free[node * width + d] ?? 0)) / (view.scale[d] ?? 1);
    if (gap < nearestGap) [nearest, nearestGap] = [node, gap];
  }
  let resource = view.dims[0] ?? "";
  let short = 0;
  let ratio = 0;
  for (let d = 0; d < width; d += 1) {
    const gap = (pod.request[d] ?? 0) - (free[nearest * width + d] ?? 0);
    if ((pod.request[d] ?? 0) > 0 && gap > 0 && gap / (view.scale[d] ?? 1) > ratio) [resource, short, ratio] = [view.dims[d] ?? "", gap, gap / (view.scale[d] ?? 1)];
  }
  const count = nodes.length;
  const asked = formatAmount(resource, pod.request[view.dims.indexOf(resource)] ?? 0);
  const text =
    short > 0
      ? `${resource}: enough free in total but fragmented: a pod needs ${asked} and the nearest of ${plural(count, "candidate node")} is ${formatAmount(resource, short)} short`
      : `enough free in total but fragmented: the ${plural(group.pods.length, "pod")} do not fit together on ${plural(count, "candidate node")}`;
  return { kind: "fragmented", resource: short > 0 ? resource : undefined, short, pods: 1, nodes: count, text };
}

/**
 * Places the group on the nodes given (one name per pod, in `group.pods` order), if each
 * is still a candidate with room: what a held place or a kept hold asks for. On success
 * the requests are taken from `free` and the node indices returned; otherwise `free` is
 * unchanged and undefined is returned.
 */
export function placePinned(view: ClusterView, group: MatchGroup, free: Float64Array, nodes: readonly string[]): Int32Array | undefined {
  if (nodes.length !== group.pods.length) return undefined;
  const width = view.dims.length;
  const assigned = new Int32Array(group.pods.length);
  for (let i = 0; i < group.pods.length; i += 1) {
    const pod = group.pods[i] as MatchPod;
    const node = view.index.get(nodes[i] ?? "");
    const fits = node !== undefined && pod.missing === undefined && pod.candidates.now.includes(node) && pod.request.every((need, d) => need <= 0 || (free[node * width + d] ?? 0) >= need);
    if (!fits) {
      for (let j = 0; j < i; j += 1) give(free, width, assigned[j] ?? 0, (group.pods[j] as MatchPod).request);
      return undefined;
    }
    take(free, width, node, pod.request);
    assigned[i] = node;
  }
  return assigned;
}
