/**
 * Node pools and whole-pool outages: a node's pool is its `apps.openyurt.io/nodepool`
 * label, else its `topology.kubernetes.io/zone`; a pool is down when every one of its
 * nodes is NotReady or unreachable (then its pods are not evicted and their endpoints are
 * kept, whatever the per-node durations say, until one node comes back).
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { NODE_POOL, ZONE } from "./names.ts";
import { isEdgeNode, isReady } from "./node-autonomy.ts";

/** A node's pool (`label=value`, so a pool and a zone of the same name differ), or `undefined`. */
export function poolOf(node: KubeObject): string | undefined {
  const labels = node.metadata.labels ?? {};
  const pool = labels[NODE_POOL];
  if (pool !== undefined && pool !== "") return `${NODE_POOL}=${pool}`;
  const zone = labels[ZONE];
  return zone !== undefined && zone !== "" ? `${ZONE}=${zone}` : undefined;
}

/**
 * Whether `node` is in a pool of edge nodes that is down as a whole: it has a pool of at
 * least two nodes, and every node of that pool among `nodes` (which should hold at least
 * the node's pool; `node` itself is counted whether or not it is among them) is NotReady
 * or unreachable. A pool of one is a node: its own duration applies (as it does when the
 * peers are unknown).
 */
export function poolDown(node: KubeObject, nodes: readonly KubeObject[]): boolean {
  const pool = poolOf(node);
  if (pool === undefined || !isEdgeNode(node)) return false;
  const name = node.metadata.name;
  const members = [node, ...nodes.filter((other) => other.metadata.name !== name && poolOf(other) === pool)];
  return members.length >= 2 && members.every((member) => !isReady(member));
}
