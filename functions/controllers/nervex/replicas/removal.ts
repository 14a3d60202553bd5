/** Deleting a replica: its pod and its Service, each only as the incarnation the request saw. */
import { refOf, type Action, type ApiRequest, type KubeObject } from "../../../../protocol/index.ts";
import { controllerOf, isControlledByUid } from "../../../../protocol/kube/owner.ts";
import { relatedIn, SERVICE_KEY } from "./lookup.ts";

/**
 * The deletes of a pod (pinned to its uid) and of its Service, the one of the same name:
 * when the request sees it, only if it is controlled by the same owner as the pod (the
 * job) — a Service the job does not own is never touched; when it does not, by name: this
 * API made it with the pod, under the pod's generated name, and a Service created a
 * moment ago may not be in the relay's cache yet (a delete of one already gone succeeds).
 */
export function removeReplica(request: ApiRequest, pod: KubeObject): Action[] {
  const namespace = pod.metadata.namespace ?? "";
  const owner = controllerOf(pod);
  const actions: Action[] = [{ type: "delete", target: refOf(pod), ...(pod.metadata.uid ? { preconditions: { uid: pod.metadata.uid } } : {}) }];
  const service = relatedIn(request, SERVICE_KEY, namespace).find((s) => s.metadata.name === pod.metadata.name);
  if (!service) {
    actions.push({ type: "delete", target: { apiVersion: "v1", kind: "Service", namespace, name: pod.metadata.name ?? "" } });
  } else if (owner && isControlledByUid(service, owner.uid)) {
    actions.push({ type: "delete", target: refOf(service), ...(service.metadata.uid ? { preconditions: { uid: service.metadata.uid } } : {}) });
  }
  return actions;
}
