/**
 * Pods and nodes parsed once into the compact records a scheduling pass reads. The
 * records are plain JSON (no Map, no Infinity), so the Durable Object can store them as
 * they are and re-parse only the objects a watch event changed.
 */
import { groupOf, isOurs, type GroupIdentity } from "./group.ts";
import { nodeFacts, podConstraints, type Constraints, type NodeFacts } from "./node-fit.ts";
import { asNumber, asString, dig } from "./read.ts";
import { nodeAllocatable, podRequests, type Resources } from "./resources.ts";

/** The creation time given to a pod without a readable one: it sorts last. */
export const UNKNOWN_TIME = Number.MAX_SAFE_INTEGER;

/** What a pass reads of a pod, of any scheduler. */
export interface PodRecord {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  /** `spec.schedulerName` is ours. */
  readonly ours: boolean;
  readonly group: GroupIdentity;
  readonly request: Resources;
  readonly constraints: Constraints;
  /** `spec.priority` (0 when unset). */
  readonly priority: number;
  /** `metadata.creationTimestamp` in ms since the epoch, UNKNOWN_TIME when absent. */
  readonly createdAt: number;
  /** `spec.nodeName`, when bound. */
  readonly nodeName: string | undefined;
  /** Succeeded or Failed: it holds nothing any more. */
  readonly terminal: boolean;
  /** `status.phase`, when set (the PodGroup statuses count Running, Succeeded and Failed pods). */
  readonly phase?: string | undefined;
  /** `metadata.deletionTimestamp` is set. */
  readonly deleting: boolean;
  /** `metadata.deletionTimestamp` in ms since the epoch (when the pod is expected gone), if readable. */
  readonly deletionAt?: number | undefined;
  /** `spec.activeDeadlineSeconds`, when set and positive. */
  readonly deadlineSeconds: number | undefined;
}

/** What a pass reads of a node. */
export interface NodeRecord extends NodeFacts {
  readonly allocatable: Resources;
}

/** A pod as a record; `schedulerName` tells ours (default `fluxnetes`). */
export function parsePod(pod: unknown, schedulerName?: string): PodRecord {
  const phase = asString(dig(pod, "status", "phase"));
  const created = Date.parse(asString(dig(pod, "metadata", "creationTimestamp")) ?? "");
  const deadline = asNumber(dig(pod, "spec", "activeDeadlineSeconds"));
  const nodeName = asString(dig(pod, "spec", "nodeName"));
  const deletion = asString(dig(pod, "metadata", "deletionTimestamp"));
  const deletionAt = deletion === undefined ? undefined : Date.parse(deletion);
  return {
    uid: asString(dig(pod, "metadata", "uid")) ?? "",
    namespace: asString(dig(pod, "metadata", "namespace")) || "default",
    name: asString(dig(pod, "metadata", "name")) ?? "",
    ours: isOurs(pod, schedulerName),
    group: groupOf(pod),
    request: podRequests(pod),
    constraints: podConstraints(pod),
    priority: Math.trunc(asNumber(dig(pod, "spec", "priority")) ?? 0),
    createdAt: Number.isFinite(created) ? created : UNKNOWN_TIME,
    nodeName: nodeName === "" ? undefined : nodeName,
    terminal: phase === "Succeeded" || phase === "Failed",
    phase,
    deleting: deletion !== undefined,
    deletionAt: deletionAt !== undefined && Number.isFinite(deletionAt) ? deletionAt : undefined,
    deadlineSeconds: deadline !== undefined && deadline > 0 ? deadline : undefined,
  };
}

/** A node as a record. */
export function parseNode(node: unknown): NodeRecord {
  return { ...nodeFacts(node), allocatable: nodeAllocatable(node) };
}
