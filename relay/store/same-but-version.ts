import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../../protocol/index.ts";

/**
 * Whether two states of an object are equal but for their resourceVersion: what the route
 * and the events delivery compare, each cut to a watch's fields, to drop a change that
 * tells a controller nothing.
 */
export function sameButVersion(a: KubeObject, b: KubeObject): boolean {
  const unversioned = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return isDeepStrictEqual(unversioned(a), unversioned(b));
}
