/**
 * The root of an object's owners, for a `delete` action marked `root`: the relay follows
 * the controller ownerReference (else the first) up from the target with GETs, at most
 * `MAX_OWNER_DEPTH` levels, as Kubernetes' garbage collector reads the same references
 * downwards. Deleting the root (a Job) then removes its pods through the collector.
 */
import { MAX_OWNER_DEPTH, StatusError, type KubeObject, type ObjectRef } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";

/** The object to delete in place of `target`: its highest owner that still exists (the target itself when it has none). */
export async function rootOwner(client: Pick<KubeClient, "path" | "request">, target: ObjectRef): Promise<ObjectRef> {
  let current = target;
  let last: ObjectRef | undefined;
  for (let depth = 0; depth <= MAX_OWNER_DEPTH; depth += 1) {
    const object = await found(client, current);
    // Gone, unreadable, or another incarnation under the name: the last one that exists is the root.
    if (!object || (current.uid !== undefined && object.metadata.uid !== current.uid)) return last ?? target;
    last = { ...current, ...(object.metadata.uid ? { uid: object.metadata.uid } : {}) };
    const refs = object.metadata.ownerReferences ?? [];
    const owner = refs.find((ref) => ref.controller === true) ?? refs[0];
    if (!owner) return last;
    current = { apiVersion: owner.apiVersion, kind: owner.kind, ...(current.namespace ? { namespace: current.namespace } : {}), name: owner.name, uid: owner.uid };
  }
  return last ?? target;
}

/** The object, or undefined when it is gone or the relay may not read it. */
async function found(client: Pick<KubeClient, "path" | "request">, ref: ObjectRef): Promise<KubeObject | undefined> {
  try {
    return (await client.request("GET", await client.path(ref, ref.namespace, ref.name))) as KubeObject;
  } catch (error) {
    if (error instanceof StatusError && (error.status === 404 || error.status === 403)) return undefined;
    throw error;
  }
}
