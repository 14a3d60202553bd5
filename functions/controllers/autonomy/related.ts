/**
 * What the autonomy webhooks and snapshots are sent besides their object: the nodes it
 * names with the nodes of their pools (a whole-pool outage needs them all), and the pods
 * it names. Narrowed by the relay, so a request costs what it names, not the cluster.
 */
import type { RelatedObjectsInput } from "../../../protocol/index.ts";
import { NODE_POOL, ZONE } from "./names.ts";

const NODE = { apiVersion: "v1", kind: "Node" } as const;
const POD = { apiVersion: "v1", kind: "Pod" } as const;

/** The nodes named at `paths`, and every node sharing their pool label or (for nodes without one) their zone. */
export function nodesAndPools(paths: readonly string[]): RelatedObjectsInput[] {
  const namedBy = [...paths];
  return [
    { ...NODE, namedBy },
    // Two entries, not one with both labels: one entry would ask for both to match.
    { ...NODE, sharingLabels: { namedBy, labels: [NODE_POOL] } },
    { ...NODE, sharingLabels: { namedBy, labels: [ZONE] } },
  ];
}

/** The pods named at `paths`, in the request's namespace. */
export function podsNamed(paths: readonly string[]): RelatedObjectsInput[] {
  return [{ ...POD, namedBy: [...paths] }];
}
