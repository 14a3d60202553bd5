/**
 * The OpenYurt names edge autonomy is compatible with (labels, annotations, conditions),
 * spelled once. See the family's README section and ADR 0013.
 */

/** Node annotation: how long the node's pods survive a NotReady or unreachable node (a Go duration; `0` = forever). */
export const AUTONOMY_DURATION = "node.openyurt.io/autonomy-duration";
/** Deprecated node annotation, still honoured: `"true"` = autonomous forever. */
export const AUTONOMY_BETA = "node.beta.openyurt.io/autonomy";
/** Deprecated node annotation, still honoured: `"true"` = autonomous forever. */
export const POD_BINDING = "apps.openyurt.io/binding";
/** Node label of an edge node (`"true"`): only edge nodes are autonomous. */
export const EDGE_WORKER = "openyurt.io/is-edge-worker";
/** Node label naming a node pool. */
export const NODE_POOL = "apps.openyurt.io/nodepool";
/** The pool of a node without a node pool label. */
export const ZONE = "topology.kubernetes.io/zone";
/** Node condition written by the edge hub: `Unknown` = its cache failed. */
export const AUTONOMY_CONDITION = "Autonomy";

/** Pod annotations keeping the original seconds of the two tolerations, so they can be restored (`""`: none). */
export const ORIGINAL_NOT_READY = "apps.openyurt.io/original-not-ready-toleration-duration";
export const ORIGINAL_UNREACHABLE = "apps.openyurt.io/original-unreachable-toleration-duration";

/** The two NoExecute taints the node lifecycle puts on a NotReady (`Ready=False`) or unreachable (`Unknown`) node. */
export const NOT_READY_TAINT = "node.kubernetes.io/not-ready";
export const UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
