/**
 * What the tolerations of the pods bound to a node should be, from the node and the nodes
 * of its pool: the node's autonomy duration, "forever" while its whole pool is down, and
 * the kept originals when the node is not autonomous.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { kindKey } from "../../../protocol/index.ts";
import { autonomyOf } from "./node-autonomy.ts";
import { poolDown } from "./pools.ts";
import type { Target } from "./tolerations.ts";

/** The kind key of the Pods of a snapshot (the node's children). */
export const POD_KEY = kindKey({ apiVersion: "v1", kind: "Pod" });
/** The kind key of the Nodes of a snapshot or an admission request (a node and its pool peers). */
export const NODE_KEY = kindKey({ apiVersion: "v1", kind: "Node" });

/**
 * The target of the pods on `node` (`peers`: the nodes of its pool, itself among them or
 * not):
 * - autonomous (`on`): its seconds (`undefined` for forever); forever while every node of
 *   its pool is NotReady or unreachable, so nothing of a pool cut off as a whole is
 *   evicted, whatever the duration, until one of its nodes is back;
 * - not autonomous (`off`), not an edge node, or an unparsable duration: `restore`.
 */
export function targetFor(node: KubeObject, peers: readonly KubeObject[]): Target {
  const autonomy = autonomyOf(node);
  if (autonomy.kind !== "on") return { kind: "restore" };
  if (poolDown(node, peers)) return { kind: "set", seconds: undefined };
  return { kind: "set", seconds: autonomy.seconds };
}

/** The node a pod is bound to (`spec.nodeName`), or `undefined` while it is not bound. */
export function boundNodeOf(pod: KubeObject): string | undefined {
  const spec = pod["spec"];
  const name = typeof spec === "object" && spec !== null ? (spec as Record<string, unknown>)["nodeName"] : undefined;
  return typeof name === "string" && name !== "" ? name : undefined;
}
