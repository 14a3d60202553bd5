/**
 * Why a group waits, structured for the inspection output (which resource, how short, on
 * how many candidate nodes) with a sentence for people.
 */

/** The kinds of waiting. */
export type WaitKind =
  /** A resource is short in total on the nodes the group may use. */
  | "resources"
  /** Enough in total, but spread so that some pod finds no node with room for all it requests. */
  | "fragmented"
  /** No node passes some pod's node selector, affinity, taints, readiness or cordon. */
  | "constraints"
  /** It fits now, but starting it would delay the reservation of the group at the head. */
  | "delays-reservation"
  /** It could not fit even on the empty cluster: rejected, never retried in this pass. */
  | "unsatisfiable";

/** Why a group waits. */
export interface WaitReason {
  readonly kind: WaitKind;
  /** The resource short (cpu, memory, pods, `nvidia.com/gpu`...), when one is. */
  readonly resource: string | undefined;
  /** How much more of `resource` the group needs, in its units (cpu in millicores, bytes, counts). */
  readonly short: number;
  /** How many of the group's pods request `resource` (or, for constraints, fail them). */
  readonly pods: number;
  /** How many candidate nodes were considered. */
  readonly nodes: number;
  /** The reason in a sentence, e.g. `nvidia.com/gpu: 2 pods need 4 more on 3 candidate nodes`. */
  readonly text: string;
}

/** `n thing` or `n things`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
