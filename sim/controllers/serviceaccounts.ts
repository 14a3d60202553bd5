/**
 * The ServiceAccount controller (kube-controller-manager's `serviceaccount-controller`):
 * every namespace that is not terminating has a `default` ServiceAccount, made when the
 * namespace appears and again if it is deleted. Clients (Helm, kubectl create token,
 * pods naming no account on a real server) wait for it.
 */
import { ApiError, type Cluster, type ClusterEvent, type SimController } from "../contract.ts";
import { KeyQueue } from "./runtime.ts";

const NAMESPACE = { apiVersion: "v1", kind: "Namespace" };
const SERVICE_ACCOUNT = { apiVersion: "v1", kind: "ServiceAccount" };
const NAME = "default";

export function serviceAccountController(): SimController {
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((namespace) => ensure(namespace));

  async function ensure(namespace: string): Promise<void> {
    if (!cluster) return;
    const ns = await cluster.find(NAMESPACE, undefined, namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    if (await cluster.find(SERVICE_ACCOUNT, namespace, NAME)) return;
    try {
      await cluster.create({ ...SERVICE_ACCOUNT, metadata: { name: NAME, namespace } });
    } catch (error) {
      // Made meanwhile, or the namespace began terminating: nothing to do.
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 403 || error.code === 404))) throw error;
    }
  }

  function onEvent(event: ClusterEvent): void {
    const object = event.object;
    if (object.apiVersion !== "v1") return;
    if (object.kind === "Namespace" && event.type !== "DELETED" && !object.metadata.deletionTimestamp) queue.add(object.metadata.name ?? "");
    else if (object.kind === "ServiceAccount" && event.type === "DELETED" && object.metadata.name === NAME && object.metadata.namespace) queue.add(object.metadata.namespace);
  }

  return {
    name: "serviceaccount-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(NAMESPACE, onEvent), c.watch(SERVICE_ACCOUNT, onEvent));
      void c.list(NAMESPACE).then((namespaces) => {
        for (const ns of namespaces.items) queue.add(ns.metadata.name ?? "");
      });
    },
    async stop(): Promise<void> {
      for (const stop of unwatch.splice(0)) stop();
      cluster = undefined;
      await queue.stop();
    },
  };
}
