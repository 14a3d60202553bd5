/**
 * Where a DaemonSet runs and the pod it runs there, as kube-controller-manager's DaemonSet
 * controller decides (pkg/controller/daemon: NodeShouldRunDaemonPod, NewPod,
 * AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity). Pure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerRef } from "../../protocol/kube/owner.ts";
import { templateHash } from "./deployment-revisions.ts";
import { matchesNodeAffinity, pinnedNodeNames } from "./node-affinity.ts";
import { arr, obj, type Obj } from "./runtime.ts";
import { tolerates } from "./scheduler.ts";
import { DISK_PRESSURE, MEMORY_PRESSURE, NETWORK_UNAVAILABLE, NOT_READY, PID_PRESSURE, UNREACHABLE, UNSCHEDULABLE } from "./taints.ts";

/** The label naming a daemon pod's template revision (apps.ControllerRevisionHashLabelKey). */
export const REVISION_HASH_LABEL = "controller-revision-hash";
/** The deprecated label with the DaemonSet's generation when the pod was made (extensions.DaemonSetTemplateGenerationKey). */
export const TEMPLATE_GENERATION_LABEL = "pod-template-generation";
const DAEMON_SET = { apiVersion: "apps/v1", kind: "DaemonSet" };

/** The tolerations every daemon pod gets, so node problems neither evict it nor keep it off a node. */
function defaultTolerations(hostNetwork: boolean): Obj[] {
  const exists = (key: string, effect: string): Obj => ({ key, operator: "Exists", effect });
  return [
    exists(NOT_READY, "NoExecute"),
    exists(UNREACHABLE, "NoExecute"),
    exists(DISK_PRESSURE, "NoSchedule"),
    exists(MEMORY_PRESSURE, "NoSchedule"),
    exists(PID_PRESSURE, "NoSchedule"),
    exists(UNSCHEDULABLE, "NoSchedule"),
    ...(hostNetwork ? [exists(NETWORK_UNAVAILABLE, "NoSchedule")] : []),
  ];
}

/** AddOrUpdateTolerationInPodSpec: one the pod has with the same key, operator, value and effect stays; else it is added. */
export function withDaemonTolerations(spec: Obj): Obj[] {
  const tolerations = arr(spec.tolerations);
  const same = (a: Obj, b: Obj): boolean => a.key === b.key && (a.operator ?? "Equal") === b.operator && (a.value ?? "") === (b.value ?? "") && a.effect === b.effect;
  return [...tolerations, ...defaultTolerations(spec.hostNetwork === true).filter((t) => !tolerations.some((have) => same(have, t)))];
}

/** The DaemonSet's pod template with its default tolerations (what the predicates check). */
function templatePod(ds: KubeObject, nodeName: string): KubeObject {
  const template = obj(obj((ds as Obj).spec).template);
  const spec = obj(template.spec);
  return { apiVersion: "v1", kind: "Pod", metadata: obj(template.metadata), spec: { ...spec, nodeName, tolerations: withDaemonTolerations(spec) } } as KubeObject;
}

/** NodeShouldRunDaemonPod: whether a pod should be placed on the node, and whether one there may keep running. */
export function placement(ds: KubeObject, node: KubeObject): { readonly shouldRun: boolean; readonly shouldContinueRunning: boolean } {
  const name = node.metadata.name ?? "";
  const pod = templatePod(ds, name);
  const pinned = String(obj(obj(obj((ds as Obj).spec).template).spec).nodeName ?? "");
  if ((pinned !== "" && pinned !== name) || !matchesNodeAffinity(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const tolerations = arr(obj((pod as Obj).spec).tolerations);
  const untolerated = (effects: readonly string[]): boolean => arr(obj((node as Obj).spec).taints).some((t) => effects.includes(String(t.effect)) && !tolerates(tolerations, t));
  if (untolerated(["NoSchedule", "NoExecute"])) return { shouldRun: false, shouldContinueRunning: !untolerated(["NoExecute"]) };
  return { shouldRun: true, shouldContinueRunning: true };
}

/** The hash of the DaemonSet's current template (the controller-revision-hash its new pods carry). */
export function daemonTemplateHash(ds: KubeObject): string {
  return templateHash(obj(obj((ds as Obj).spec).template));
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the pod's required node affinity pinned to one node by matchFields. */
function pinnedAffinity(affinity: Obj, nodeName: string): Obj {
  const nodeAffinity = obj(affinity.nodeAffinity);
  const required = obj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution);
  const pin = [{ key: "metadata.name", operator: "In", values: [nodeName] }];
  const terms = arr(required.nodeSelectorTerms);
  const pinnedTerms = terms.length === 0 ? [{ matchFields: pin }] : terms.map((term) => ({ ...term, matchFields: pin }));
  return { ...affinity, nodeAffinity: { ...nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { ...required, nodeSelectorTerms: pinnedTerms } } };
}

/** The pod the DaemonSet runs on `nodeName`: its template, labelled with its revision, pinned to the node by affinity (the scheduler binds it). */
export function daemonPod(ds: KubeObject, nodeName: string): KubeObject {
  const template = obj(obj((ds as Obj).spec).template);
  const meta = obj(template.metadata);
  const spec = obj(template.spec);
  const labels = { ...(obj(meta.labels) as Record<string, string>), [REVISION_HASH_LABEL]: daemonTemplateHash(ds), [TEMPLATE_GENERATION_LABEL]: ds.metadata.annotations?.["deprecated.daemonset.template.generation"] ?? "1" };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${ds.metadata.name ?? ""}-`,
      namespace: ds.metadata.namespace,
      labels,
      ...(meta.annotations ? { annotations: meta.annotations as Record<string, string> } : {}),
      ownerReferences: [controllerRef(ds, DAEMON_SET)],
    },
    spec: { ...spec, affinity: pinnedAffinity(obj(spec.affinity), nodeName), tolerations: withDaemonTolerations(spec) },
  } as KubeObject;
}

/** The node a daemon pod is on, or is pinned to while it waits for the scheduler. */
export function daemonPodNode(pod: KubeObject): string | undefined {
  const bound = obj((pod as Obj).spec).nodeName;
  if (typeof bound === "string" && bound !== "") return bound;
  const pinned = pinnedNodeNames(pod);
  return pinned?.size === 1 ? [...pinned][0] : undefined;
}
