/**
 * A started group's pods not yet bound, checked again when their binds are sent again: a
 * pod keeps the node its allocation gave it while that node exists and still fits (the
 * pass's own rules: Ready, not cordoned, taints, selectors, affinity, and room); those it
 * no longer fits are placed again, together, on the current view, the group's bound pods
 * staying where they are.
 */
import { feasibility } from "./feasible.ts";
import { compileGroup, matchGroup, type MatchResult } from "./matcher.ts";
import { checkNode } from "./node-fit.ts";
import type { PodRecord } from "./records.ts";
import { give, take, toDense, type ClusterView, type HeldPod } from "./view.ts";

/** A pod of an allocation, seen by the watch and not bound yet: what the allocation holds for it, and the pod. */
export interface HeldUnbound {
  readonly held: HeldPod;
  readonly pod: PodRecord;
}

/**
 * Why the node an allocation gave `unbound` no longer takes it, or undefined when it still
 * does. The view counts the pod's hold on that node, so a resource the pod requests that
 * is overcommitted there (free below zero) means another pod took its room.
 */
export function heldNodeFailure(view: ClusterView, unbound: HeldUnbound): string | undefined {
  const { held, pod } = unbound;
  const index = view.index.get(held.node);
  const node = index === undefined ? undefined : view.nodes[index];
  if (index === undefined || node === undefined) return `node ${held.node} is gone`;
  const failure = checkNode(pod.constraints, node, true);
  if (failure !== undefined) return `node ${held.node}: ${failure.text}`;
  const width = view.dims.length;
  const request = toDense(view.dims, held.request).vector;
  for (let d = 0; d < width; d += 1) {
    if ((request[d] ?? 0) > 0 && (view.free[index * width + d] ?? 0) < 0) return `node ${held.node} no longer has room for it (${view.dims[d] ?? ""})`;
  }
  return undefined;
}

/**
 * Places `pods` again as one group on the view, their holds given back first (all or
 * none, as a pass places a group): every pod's new node, or why they do not fit now. The
 * view is not changed; {@link moveHolds} records a placement in it.
 */
export function placeAgain(view: ClusterView, group: string, pods: readonly HeldUnbound[]): MatchResult {
  const free = view.free.slice();
  for (const { held } of pods) release(view, free, held);
  return matchGroup(view, compileGroup(feasibility(view), { key: group, pods: pods.map(({ pod }) => pod) }), free);
}

/**
 * Records in the view that `pods` left their held nodes for `placed` (a pod missing from
 * `placed` is let go: it holds nothing any more), so that later checks on the same view
 * see the room as it now is.
 */
export function moveHolds(view: ClusterView, pods: readonly HeldUnbound[], placed: ReadonlyMap<string, string>): void {
  for (const { held } of pods) {
    release(view, view.free, held);
    const to = placed.get(held.uid);
    const index = to === undefined ? undefined : view.index.get(to);
    if (index !== undefined) take(view.free, view.dims.length, index, toDense(view.dims, held.request).vector);
  }
}

/** Gives a hold back to `free`, when its node is in the view (the view counted it there). */
function release(view: ClusterView, free: Float64Array, held: HeldPod): void {
  const index = view.index.get(held.node);
  if (index !== undefined) give(free, view.dims.length, index, toDense(view.dims, held.request).vector);
}
