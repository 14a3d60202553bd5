/**
 * How learners asking for GPUs become pods. A learner with at most one GPU is one
 * learner pod. A learner with more becomes an aggregator plus ddp-learners: its GPUs are
 * split into pods of at most the most common per-node GPU count, so each ddp-learner fits
 * a typical node (upstream: 10 GPUs on nodes with 8, 8, 0 and 4 → [8, 2]).
 *
 * The rule that reproduces upstream's table: the per-node count is the mode of the
 * allocatable `nvidia.com/gpu` of the nodes that have GPUs (nodes without any are not
 * candidates), a tie going to the larger count; with no GPU node at all the GPUs are not
 * split (one ddp-learner holds them all).
 */
import type { KubeObject } from "../../../../protocol/index.ts";

/** The extended resource name of NVIDIA GPUs. */
export const GPU_RESOURCE = "nvidia.com/gpu";

/** A node's allocatable GPUs (0 when it has none or the value is not a whole number). */
export function nodeGpus(node: KubeObject): number {
  const status = node["status"];
  if (typeof status !== "object" || status === null) return 0;
  const allocatable = (status as { allocatable?: unknown }).allocatable;
  if (typeof allocatable !== "object" || allocatable === null) return 0;
  const value = (allocatable as Record<string, unknown>)[GPU_RESOURCE];
  const count = typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 0;
  return Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/** The most common positive GPU count among `counts` (ties: the larger), or undefined when none is positive. */
export function commonGpuCount(counts: readonly number[]): number | undefined {
  const tally = new Map<number, number>();
  for (const count of counts) if (count > 0) tally.set(count, (tally.get(count) ?? 0) + 1);
  let best: number | undefined;
  let bestTimes = 0;
  for (const [count, times] of tally) {
    if (times > bestTimes || (times === bestTimes && best !== undefined && count > best)) {
      best = count;
      bestTimes = times;
    }
  }
  return best;
}

/** `gpus` cut into pods of at most `perNode` each, the remainder last (all in one when `perNode` is undefined). */
export function splitGpus(gpus: number, perNode: number | undefined): number[] {
  if (gpus <= 0) return [];
  if (perNode === undefined || perNode <= 0 || gpus <= perNode) return [gpus];
  const parts: number[] = [];
  let left = gpus;
  while (left > perNode) {
    parts.push(perNode);
    left -= perNode;
  }
  parts.push(left);
  return parts;
}

/** What `replicas` learners with `gpus` GPUs each become. */
export interface LearnerLayout {
  /** Plain learner pods (each with the requested GPUs, 0 or 1). */
  readonly learners: number;
  /** One entry per aggregator: the GPUs of each of its ddp-learners. */
  readonly aggregators: readonly (readonly number[])[];
}

/** Learners with more than one GPU become aggregators with their ddp-learners; the others stay learners. */
export function layoutLearners(replicas: number, gpus: number, perNode: number | undefined): LearnerLayout {
  if (gpus <= 1) return { learners: replicas, aggregators: [] };
  const split = splitGpus(gpus, perNode);
  return { learners: 0, aggregators: Array.from({ length: replicas }, () => [...split]) };
}

/** The counts of upstream's table: aggregators, learners, ddp-learners and GPU ports (one per GPU of a ddp-learner). */
export function layoutCounts(layout: LearnerLayout): { aggregators: number; learners: number; ddpLearners: number; gpuPorts: number } {
  return {
    aggregators: layout.aggregators.length,
    learners: layout.learners,
    ddpLearners: layout.aggregators.reduce((sum, split) => sum + split.length, 0),
    gpuPorts: layout.aggregators.reduce((sum, split) => sum + split.reduce((a, b) => a + b, 0), 0),
  };
}
