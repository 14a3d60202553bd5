/**
 * Which POST made a replica: its pod and Service carry the id of the request's first
 * attempt (within the API's retry window the Worker hands a retry that id:
 * `functions/routes/api.ts`). A retry after a lost answer or a partial apply finds what
 * the first attempt made, creates only the rest under the same names, and answers the
 * same replicas (issue 28, findings 1 and 2).
 */
import type { KubeObject } from "../../../../protocol/index.ts";
import { isControlledByUid } from "../../../../protocol/kube/owner.ts";

/** The annotation naming the request (its first attempt's id) that created a replica's pod and Service. */
export const REQUEST_ANNOTATION = "nervex.edgeloop.dev/request";

/** Whether `object` was created by request `requestId` for the job of uid `jobUid` (a marker on another owner's object does not count). */
export function madeBy(object: KubeObject, requestId: string, jobUid: string): boolean {
  return object.metadata.annotations?.[REQUEST_ANNOTATION] === requestId && isControlledByUid(object, jobUid);
}

/** `object` marked as created by request `requestId`. */
export function marked(object: KubeObject, requestId: string): KubeObject {
  return { ...object, metadata: { ...object.metadata, annotations: { ...object.metadata.annotations, [REQUEST_ANNOTATION]: requestId } } };
}

/** The key of an object among those a request made: `Kind/name`. */
export function madeKey(object: KubeObject): string {
  return `${object.kind}/${object.metadata.name ?? ""}`;
}
