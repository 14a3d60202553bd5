/**
 * The root of an object's owners, for a `delete` action marked `root`: the walk up the
 * ownerReferences is `protocol/kube/owner.ts`'s; the relay reads each owner with a GET, at
 * most `MAX_OWNER_DEPTH` levels. Deleting the root (a Job) then removes its pods through
 * the garbage collector.
 */
import { MAX_OWNER_DEPTH, StatusError, type KubeObject, type ObjectRef } from "../../protocol/index.ts";
import { rootOwner as walkToRoot } from "../../protocol/kube/owner.ts";
import type { KubeClient } from "../kube/client.ts";

/** The object to delete in place of `target`: its highest owner that still exists (the target itself when it has none). */
export function rootOwner(client: Pick<KubeClient, "path" | "request">, target: ObjectRef): Promise<ObjectRef> {
  return walkToRoot(target, (ref) => found(client, ref), MAX_OWNER_DEPTH);
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
