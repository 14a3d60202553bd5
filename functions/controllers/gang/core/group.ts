/**
 * A pod's gang: which group it belongs to and how many pods the group waits for, from the
 * Fluxnetes labels, and whether the pod is ours at all.
 */
import { asString, dig } from "./read.ts";

/** Our scheduler's name: pods with `spec.schedulerName` set to it are ours. */
export const SCHEDULER_NAME = "fluxnetes";
/** The label naming a pod's group (default `fluxnetes-group-<namespace>-<pod name>`, a group of one). */
export const GROUP_NAME_LABEL = "fluxnetes.group-name";
/** The label giving the group's size (default 1). */
export const GROUP_SIZE_LABEL = "fluxnetes.group-size";
/** The largest group size we accept; a larger label is clamped to it. */
export const MAX_GROUP_SIZE = 10_000;

/** A pod's group. */
export interface GroupIdentity {
  readonly namespace: string;
  /** The group's name, from the label or the default. */
  readonly name: string;
  /** `namespace/name`: the key groups are stored, ordered and reported by. */
  readonly key: string;
  /** How many pods the group needs before it may be scheduled (1..MAX_GROUP_SIZE). */
  readonly size: number;
}

/** The group size a label value gives: a positive decimal integer clamped to MAX_GROUP_SIZE; anything else (absent, 0, `-2`, `1.5`, `x`) is 1. */
export function parseGroupSize(value: string | undefined): number {
  if (value === undefined || !/^\+?\d{1,12}$/.test(value.trim())) return 1;
  const size = Number(value.trim());
  return size < 1 ? 1 : Math.min(size, MAX_GROUP_SIZE);
}

/** The group a pod belongs to. */
export function groupOf(pod: unknown): GroupIdentity {
  const namespace = asString(dig(pod, "metadata", "namespace")) || "default";
  const podName = asString(dig(pod, "metadata", "name")) ?? "";
  const labelled = asString(dig(pod, "metadata", "labels", GROUP_NAME_LABEL));
  const name = labelled !== undefined && labelled !== "" ? labelled : `fluxnetes-group-${namespace}-${podName}`;
  return { namespace, name, key: `${namespace}/${name}`, size: parseGroupSize(asString(dig(pod, "metadata", "labels", GROUP_SIZE_LABEL))) };
}

/** Whether the pod asks for our scheduler. */
export function isOurs(pod: unknown): boolean {
  return asString(dig(pod, "spec", "schedulerName")) === SCHEDULER_NAME;
}
