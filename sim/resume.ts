/**
 * What a cluster restored from disk does once its built-in controllers run, as a
 * rebooted control plane does: every object is listed to them again (they learn the
 * state from events, so deletions left half done go on: terminating pods, foreground
 * deletions, terminating namespaces), and the kubelets report in at once (so nodes do
 * not look dead for the time the sim was stopped).
 */
import type { SimCluster } from "./api/sim-cluster.ts";
import { heartbeating, readyCondition } from "./controllers/nodes.ts";
import { arr, ignoreNotFound, now, obj, type Obj } from "./controllers/runtime.ts";

const NODE = { apiVersion: "v1", kind: "Node" };
const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };

/** Resumes a restored cluster; `kubelets` when the node heartbeats run (the built-in controllers). */
export async function resumeRestored(cluster: SimCluster, kubelets: boolean): Promise<void> {
  cluster.store.replay();
  // The state may predate the system PriorityClasses (or have lost them): create them, as a starting kube-apiserver does.
  cluster.ensureSystemPriorityClasses();
  if (kubelets) await reportNodesIn(cluster);
}

/** Each heartbeating node posts Ready and renews its Lease now, as a kubelet does when it starts. */
async function reportNodesIn(cluster: SimCluster): Promise<void> {
  const stamp = now();
  for (const node of (await cluster.list(NODE)).items) {
    if (!heartbeating(node)) continue;
    const name = node.metadata.name ?? "";
    const conditions = arr(obj((node as Obj).status).conditions);
    const ready = conditions.find((c) => c.type === "Ready");
    const transition = ready?.status === "True" ? String(ready.lastTransitionTime ?? stamp) : stamp;
    const others = conditions.filter((c) => c.type !== "Ready");
    await ignoreNotFound(cluster.patch(NODE, undefined, name, { status: { conditions: [...others, readyCondition("True", stamp, transition)] } }, "merge", { subresource: "status" }));
    if (await cluster.find(LEASE, "kube-node-lease", name)) {
      await ignoreNotFound(cluster.patch(LEASE, "kube-node-lease", name, { spec: { renewTime: `${stamp.slice(0, 19)}.000000Z` } }, "merge"));
    }
  }
}
