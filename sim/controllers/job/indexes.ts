/**
 * Completion-index bookkeeping of Indexed Jobs, as the upstream Job controller keeps it:
 * `status.completedIndexes` is a compressed list of intervals ("0-2,4,6,7"), each index
 * counts once, and new pods take the lowest indexes neither succeeded nor running.
 */
import type { KubeObject } from "../../../protocol/index.ts";

/** Annotation (and label) carrying a pod's completion index. */
export const INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";

/** The index of a pod, or undefined when it has none (or a malformed one). */
export function completionIndex(pod: KubeObject): number | undefined {
  const raw = pod.metadata.annotations?.[INDEX_ANNOTATION];
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** Whether a pod's index is one of the Job's (0 <= index < completions). */
export function validIndex(pod: KubeObject, completions: number): boolean {
  const index = completionIndex(pod);
  return index !== undefined && index < completions;
}

/** Parses `status.completedIndexes`, keeping indexes below `completions`; sorted, unique. */
export function parseIndexes(text: unknown, completions: number): number[] {
  if (typeof text !== "string" || text === "") return [];
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const [first, last = first] = part.split("-").map(Number);
    if (first === undefined || last === undefined || !Number.isInteger(first) || !Number.isInteger(last)) continue;
    for (let i = first; i <= last && i < completions; i++) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

/** Formats sorted indexes as upstream does: runs of three or more as `a-b`, pairs as `a,b`. */
export function formatIndexes(sorted: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    const first = sorted[i] ?? 0;
    const last = sorted[j] ?? 0;
    parts.push(last === first ? `${first}` : last === first + 1 ? `${first},${last}` : `${first}-${last}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** The union of two index lists, sorted and unique. */
export function mergeIndexes(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

/** Up to `count` of the lowest indexes below `completions` that are neither succeeded nor taken by an active pod. */
export function firstPendingIndexes(succeeded: readonly number[], active: readonly number[], count: number, completions: number): number[] {
  const taken = new Set([...succeeded, ...active]);
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!taken.has(i)) out.push(i);
  return out;
}
