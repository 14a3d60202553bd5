/**
 * The cluster as one scheduling pass sees it: every node's allocatable and what is free on
 * it, as dense numeric vectors (one slot per resource dimension) so that the matcher's
 * inner loop is a few array reads.
 *
 * Used = the requests of every pod bound to the node that is not Succeeded or Failed,
 * whatever its scheduler (Fluxnetes ignored other schedulers' pods), plus what our own
 * allocations hold for pods not yet seen bound (a binding in flight, a pod not yet
 * delivered by the watch).
 */
import type { NodeRecord, PodRecord } from "./records.ts";
import { CPU, MEMORY, PODS, amount, type Resources } from "./resources.ts";

/** One pod of a running allocation: the node it was given and what it requests. */
export interface HeldPod {
  readonly uid: string;
  readonly node: string;
  readonly request: Resources;
}

/** A group we placed: what it holds and until when. Plain JSON, for the Durable Object to keep. */
export interface Allocation {
  /** The group key, `namespace/group`. */
  readonly group: string;
  readonly pods: readonly HeldPod[];
  /** When it was placed, ms since the epoch. */
  readonly startedAt: number;
  /** When it ends (start + duration), ms since the epoch; undefined when no end is known (it runs until it finishes). */
  readonly endsAt: number | undefined;
}

/** What one allocation adds to a node's used resources in this view. */
export interface Held {
  readonly node: number;
  readonly request: Float64Array;
}

/** A bound pod being deleted: what it frees on its node, and when it is expected gone. */
export interface Release {
  readonly node: number;
  readonly request: Float64Array;
  /** Its `deletionTimestamp`, ms since the epoch (0 when unreadable: any time now). */
  readonly at: number;
}

/** The view of one pass. Vectors are row-major: node `n`, dimension `d` is at `n * dims.length + d`. */
export interface ClusterView {
  /** Resource names, one per dimension: cpu, memory, pods, then extended resources sorted. */
  readonly dims: readonly string[];
  /** The nodes, sorted by name; a node's position is its index in the vectors. */
  readonly nodes: readonly NodeRecord[];
  readonly index: ReadonlyMap<string, number>;
  readonly allocatable: Float64Array;
  /** Allocatable minus used; negative when a node is overcommitted. */
  readonly free: Float64Array;
  /** Per dimension, the largest allocatable of any node (at least 1): divides amounts so dimensions compare. */
  readonly scale: Float64Array;
  /** Per allocation (by group key), what it adds to used: released when it ends. */
  readonly held: ReadonlyMap<string, readonly Held[]>;
  /**
   * Bound pods being deleted, of any scheduler: used now, free once they are gone. The
   * reservation counts on them (else the terminating pods of a group ended at its
   * deadline would look held forever, and the head's start unknown).
   */
  readonly releasing: readonly Release[];
}

/** A request as a dense vector over the view's dimensions; `missing` names a requested resource no node offers. */
export interface DenseRequest {
  readonly vector: Float64Array;
  readonly missing: string | undefined;
}

/** `resources` over `dims`. */
export function toDense(dims: readonly string[], resources: Resources): DenseRequest {
  const vector = new Float64Array(dims.length);
  for (let d = 0; d < dims.length; d += 1) vector[d] = amount(resources, dims[d] ?? "");
  const missing = Object.keys(resources.scalar).find((name) => !dims.includes(name));
  return { vector, missing };
}

/** The dimensions: the fixed three, then every extended resource a node offers or a counted pod requests. */
function dimensionsOf(nodes: readonly NodeRecord[], pods: readonly PodRecord[], allocations: readonly Allocation[]): string[] {
  const names = new Set<string>();
  for (const node of nodes) for (const name of Object.keys(node.allocatable.scalar)) names.add(name);
  for (const pod of pods) if (pod.nodeName !== undefined && !pod.terminal) for (const name of Object.keys(pod.request.scalar)) names.add(name);
  for (const allocation of allocations) for (const held of allocation.pods) for (const name of Object.keys(held.request.scalar)) names.add(name);
  return [CPU, MEMORY, PODS, ...[...names].sort()];
}

/** Subtracts `request` (in `dims`) from node `node` of `free`. */
export function take(free: Float64Array, width: number, node: number, request: Float64Array): void {
  const base = node * width;
  for (let d = 0; d < width; d += 1) free[base + d] = (free[base + d] ?? 0) - (request[d] ?? 0);
}

/** Adds `request` back to node `node` of `free`. */
export function give(free: Float64Array, width: number, node: number, request: Float64Array): void {
  const base = node * width;
  for (let d = 0; d < width; d += 1) free[base + d] = (free[base + d] ?? 0) + (request[d] ?? 0);
}

/**
 * Builds the view: O(nodes × dims + pods + allocated pods). Pods bound to a node the view
 * does not know are ignored; an allocation's pod is counted once, through the pod when it
 * is seen bound, through the allocation when it is not seen or not yet bound, not at all
 * when it is terminal.
 */
export function buildView(nodes: readonly NodeRecord[], pods: readonly PodRecord[], allocations: readonly Allocation[]): ClusterView {
  const sorted = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const dims = dimensionsOf(sorted, pods, allocations);
  const width = dims.length;
  const index = new Map(sorted.map((node, i) => [node.name, i] as const));
  const allocatable = new Float64Array(sorted.length * width);
  sorted.forEach((node, n) => allocatable.set(toDense(dims, node.allocatable).vector, n * width));
  const free = allocatable.slice();
  const scale = new Float64Array(width).fill(1);
  for (let i = 0; i < allocatable.length; i += 1) scale[i % width] = Math.max(scale[i % width] ?? 1, allocatable[i] ?? 0);
  const byUid = new Map<string, PodRecord>();
  const releasing: Release[] = [];
  for (const pod of pods) {
    byUid.set(pod.uid, pod);
    const node = pod.nodeName === undefined || pod.terminal ? undefined : index.get(pod.nodeName);
    if (node === undefined) continue;
    const request = toDense(dims, pod.request).vector;
    take(free, width, node, request);
    if (pod.deleting) releasing.push({ node, request, at: pod.deletionAt ?? 0 });
  }
  const held = new Map<string, Held[]>();
  for (const allocation of [...allocations].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0))) {
    const list: Held[] = [];
    for (const pod of allocation.pods) {
      const seen = byUid.get(pod.uid);
      if (seen?.terminal === true) continue;
      const bound = seen?.nodeName === undefined ? undefined : index.get(seen.nodeName);
      if (seen?.nodeName !== undefined) {
        // A pod being deleted is released at its deletion time (in `releasing`), not the group's end.
        if (bound !== undefined && !seen.deleting) list.push({ node: bound, request: toDense(dims, seen.request).vector });
        continue;
      }
      const node = index.get(pod.node);
      if (node === undefined) continue;
      const request = toDense(dims, pod.request).vector;
      take(free, width, node, request);
      list.push({ node, request });
    }
    held.set(allocation.group, list);
  }
  return { dims, nodes: sorted, index, allocatable, free, scale, held, releasing };
}
