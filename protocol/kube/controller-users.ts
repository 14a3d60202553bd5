/**
 * The users kube-controller-manager's node-lifecycle controller writes Nodes as (its
 * `unreachable`/`not-ready` taints). In k8s v1.36.3 (cmd/kube-controller-manager/app/core.go,
 * `newNodeLifecycleController`) it builds its client with `NewClient("node-controller")`:
 * with `--use-service-account-credentials` (what `cluster/` runs, and kubeadm) that is the
 * ServiceAccount `kube-system/node-controller`; without it, kube-controller-manager's own
 * credentials, `system:kube-controller-manager` by convention (its client certificate's CN).
 */
export const NODE_CONTROLLER_USER = "system:serviceaccount:kube-system:node-controller";

/** Both of node-lifecycle's possible users: {@link NODE_CONTROLLER_USER}, or kube-controller-manager's own. */
export const NODE_LIFECYCLE_USERS: readonly string[] = [NODE_CONTROLLER_USER, "system:kube-controller-manager"];

