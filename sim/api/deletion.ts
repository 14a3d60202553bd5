/**
 * What a delete does to a stored object, as kube-apiserver's registry store decides it:
 * nothing yet (already terminating), a mark (deletionTimestamp, the finalizers the
 * propagation policy asks for, a graceful pod's grace period), or its removal. Pure: the
 * orchestrator (sim-cluster.ts) commits the outcome.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { DeleteOptions } from "../contract.ts";
import type { Kind } from "./kinds/kind.ts";
import { timestamp } from "./objects.ts";

/** A delete's outcome: the object to commit as MODIFIED or DELETED, or (`NONE`) the stored object unchanged. */
export interface Deletion {
  readonly type: "NONE" | "MODIFIED" | "DELETED";
  readonly object: KubeObject;
}

/** The outcome of deleting `object` of `kind` with `options`. */
export function deletion(kind: Kind, object: KubeObject, options: DeleteOptions, now: () => Date): Deletion {
  if (kind.delete) return kind.delete(object, options, now);
  if (object.metadata.deletionTimestamp) return deleteAgain(kind, object, options);
  return deleteFirst(kind, object, options, now);
}

/** Already terminating: a shorter grace period may still cut it short (force delete). */
function deleteAgain(kind: Kind, object: KubeObject, options: DeleteOptions): Deletion {
  const seconds = options.gracePeriodSeconds;
  const shorter = kind.graceful !== undefined && seconds !== undefined && seconds < (object.metadata.deletionGracePeriodSeconds ?? 0);
  if (!shorter) return { type: "NONE", object };
  const updated = { ...object, metadata: { ...object.metadata, deletionGracePeriodSeconds: seconds } };
  const removed = (object.metadata.finalizers ?? []).length === 0 && seconds === 0;
  return { type: removed ? "DELETED" : "MODIFIED", object: updated };
}

function deleteFirst(kind: Kind, object: KubeObject, options: DeleteOptions, now: () => Date): Deletion {
  const policy = options.propagationPolicy ?? kind.defaultPropagation;
  const finalizers = [...(object.metadata.finalizers ?? [])];
  if (policy === "Foreground" && !finalizers.includes("foregroundDeletion")) finalizers.push("foregroundDeletion");
  if (policy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan");
  const terminated = kind.graceful?.awaitsTermination(object) ?? false;
  const grace = kind.graceful ? (options.gracePeriodSeconds ?? kind.graceful.defaultSeconds(object)) : 0;
  const graceful = terminated && grace > 0;
  const bumped = object.metadata.generation !== undefined ? { generation: object.metadata.generation + 1 } : {};
  if (finalizers.length === 0 && !graceful) {
    // A bound pod deleted with gracePeriodSeconds=0 is marked (deletionTimestamp, grace 0, generation bumped) in the same write that removes it, as the registry's graceful path does.
    const forced = terminated && options.gracePeriodSeconds === 0;
    const last = forced ? { ...object, metadata: { ...object.metadata, deletionTimestamp: timestamp(now()), deletionGracePeriodSeconds: 0, ...bumped } } : object;
    return { type: "DELETED", object: last };
  }
  const marked: KubeObject = {
    ...object,
    metadata: {
      ...object.metadata,
      finalizers,
      deletionTimestamp: timestamp(new Date(now().getTime() + (graceful ? grace * 1000 : 0))),
      deletionGracePeriodSeconds: graceful ? grace : 0,
      ...bumped,
    },
  };
  if (marked.metadata.finalizers?.length === 0) delete marked.metadata.finalizers;
  return { type: "MODIFIED", object: marked };
}

/**
 * Whether an update removes the object: it is terminating and has no finalizers left,
 * unless it still awaits its termination (a graceful pod's kubelet) or the kind says it
 * waits for more (a namespace's spec.finalizers).
 */
export function removedByUpdate(kind: Kind, draft: KubeObject): boolean {
  if (!draft.metadata.deletionTimestamp || (draft.metadata.finalizers ?? []).length > 0) return false;
  if (kind.graceful && (draft.metadata.deletionGracePeriodSeconds ?? 0) > 0 && kind.graceful.awaitsTermination(draft)) return false;
  return kind.removableOnUpdate?.(draft) ?? true;
}
