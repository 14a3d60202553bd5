/** Benchmark helpers: percentiles, waiting for a condition, watching creations in-process. */
import type { KubeObject, TypeRef } from "../../functions/protocol/index.ts";
import type { SimCluster } from "../../sim/index.ts";

/** The p-th percentile of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** Rounds to 0.1. */
export function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Polls `check` every 20 ms until it is true; rejects after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Calls `onAdded` with the commit time of every new object of `type`. */
export function onCreated(cluster: SimCluster, type: TypeRef, onAdded: (object: KubeObject, at: number) => void): () => void {
  return cluster.watch(type, (event) => {
    if (event.type === "ADDED") onAdded(event.object, performance.now());
  });
}
