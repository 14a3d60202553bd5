/**
 * Events as the built-in controllers of a real cluster record them (core/v1 Event, the
 * shape `kubectl describe` and `kubectl get events` read): `Normal` for what happened,
 * `Warning` for what went wrong. A failure to record is never the controller's failure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster } from "../contract.ts";

/** The components that report, as kube-controller-manager, kube-scheduler and the kubelet name themselves. */
export type EventSource = "default-scheduler" | "kubelet" | "replicaset-controller" | "deployment-controller" | "job-controller" | "namespace-controller" | "endpoint-controller" | "node-controller" | "taint-eviction-controller" | "garbage-collector-controller" | "daemonset-controller" | "statefulset-controller" | "replication-controller";

/** Records one Event about `object`; `host` is the node for kubelet Events. */
export async function recordEvent(cluster: Cluster, object: KubeObject, type: "Normal" | "Warning", reason: string, message: string, source: EventSource, host?: string): Promise<void> {
  const namespace = object.metadata.namespace ?? "default";
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const event = {
    apiVersion: "v1",
    kind: "Event",
    metadata: { generateName: `${object.metadata.name ?? "object"}.`, namespace },
    involvedObject: {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
      ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
      ...(object.metadata.uid ? { uid: object.metadata.uid } : {}),
      ...(object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {}),
    },
    type,
    reason,
    message,
    source: { component: source, ...(host ? { host } : {}) },
    reportingComponent: source,
    reportingInstance: host ?? source,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  } as KubeObject;
  try {
    await cluster.create(event);
  } catch {
    // An Event is best effort, as client-go's recorder: a full or terminating namespace loses it.
  }
}
