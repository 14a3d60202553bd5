/**
 * What a relist means (pure): why it happened, and what it changed beyond client-node's
 * own diff, so that it can be delivered as events and counted.
 */
import { objectKey, type KubeObject } from "../../protocol/index.ts";

/**
 * Why a cache listed again: `expired` (410 Gone), `too-large` (504 ResourceVersionTooLarge),
 * `rollback` (the new list's resourceVersion is below one already seen), `forced` (asked
 * for: SIGHUP).
 */
export type RelistReason = "expired" | "too-large" | "rollback" | "forced";

/** What a relist found that its watch had not said: objects deleted, and objects deleted and created again. */
export interface RelistCounts {
  readonly deleted: number;
  readonly recreated: number;
}

/**
 * What a relist changes beyond client-node's own diff: the cached objects the new list
 * lacks (deleted while the watch was down: delivered as DELETED with their last known
 * state) and those it holds under the same name with another uid (deleted and created
 * again: delivered as DELETED then ADDED, not as an update of one object into another).
 */
export function relistChanges(cached: readonly KubeObject[], listed: readonly { readonly metadata?: { readonly namespace?: string; readonly name?: string; readonly uid?: string } }[]): { readonly vanished: Map<string, KubeObject>; readonly replaced: Map<string, KubeObject> } {
  const uids = new Map<string, string | undefined>();
  for (const item of listed) if (item.metadata) uids.set(objectKey({ namespace: item.metadata.namespace, name: item.metadata.name ?? "" }), item.metadata.uid);
  const vanished = new Map<string, KubeObject>();
  const replaced = new Map<string, KubeObject>();
  for (const object of cached) {
    const key = objectKey(object.metadata);
    const uid = uids.get(key);
    if (!uids.has(key)) vanished.set(key, object);
    else if (object.metadata.uid !== undefined && uid !== undefined && uid !== object.metadata.uid) replaced.set(key, object);
  }
  return { vanished, replaced };
}

/** A watch ERROR (or a failed watch request) saying the resourceVersion is out of the server's reach, as client-go's `isTooLargeResourceVersionError` reads it. */
export function isTooLargeResourceVersion(status: unknown): boolean {
  if (typeof status !== "object" || status === null) return false;
  const s = status as { code?: unknown; message?: unknown; details?: { causes?: { reason?: unknown }[] } };
  if (s.code !== 504) return false;
  return (s.details?.causes ?? []).some((c) => c.reason === "ResourceVersionTooLarge") || (typeof s.message === "string" && s.message.includes("Too large resource version"));
}

/** The resourceVersion as a number, when it is one (it is opaque in general; etcd's are integers). */
export function numericRv(rv: string | undefined): number | undefined {
  if (!rv || !/^\d+$/.test(rv)) return undefined;
  return Number(rv);
}

/**
 * Why a relist happened: what the watch said (`told`), unless the list came back behind
 * the newest resourceVersion seen (`newest`) without the server saying so: a 410 or a
 * forced relist that finds the server's state gone back is a rollback.
 */
export function relistReason(told: RelistReason | undefined, listRv: number | undefined, newest: number): RelistReason {
  if (listRv !== undefined && listRv < newest && told !== "too-large") return "rollback";
  return told ?? "expired";
}
