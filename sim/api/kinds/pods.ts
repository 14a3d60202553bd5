/**
 * core/v1 Pod: its defaults, its spec validation, graceful deletion through its kubelet,
 * and the `binding` subresource the scheduler writes. (The Priority and
 * DefaultTolerationSeconds admission plugins that change pods are admission steps:
 * sim/api/admission/.)
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { conflict } from "../../pipeline/errors.ts";
import { defaultPod, defaultPodUpdate } from "../../pipeline/defaults.ts";
import { validateOnlyAddedTolerations } from "../../pipeline/tolerations.ts";
import { validatePodSpec } from "../../pipeline/validation.ts";
import { asObj, timestamp, type Obj } from "../objects.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

const specOf = (pod: KubeObject): Obj => asObj((pod as KubeObject & Obj).spec);

/** Pods. */
export const POD: BuiltinKind = builtinKind(
  {
    group: "",
    version: "v1",
    kind: "Pod",
    plural: "pods",
    namespaced: true,
    shortNames: ["po"],
    categories: ["all"],
    status: true,
    extra: ["binding"],
    fields: ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"],
  },
  {
    returnsDeletedObject: true,
    defaultCreate: defaultPod,
    defaultUpdate: defaultPodUpdate,
    // ValidatePodUpdate: tolerations may only be added, or change their tolerationSeconds.
    validate: (pod, old) => [...validatePodSpec(specOf(pod), "spec"), ...(old ? validateOnlyAddedTolerations(specOf(pod).tolerations, specOf(old).tolerations, "spec.tolerations") : [])],
    graceful: {
      defaultSeconds: (pod) => (specOf(pod).terminationGracePeriodSeconds as number | undefined) ?? 30,
      // A pod on a node terminates through its kubelet; an unscheduled one goes at once.
      awaitsTermination: (pod) => Boolean(specOf(pod).nodeName),
    },
  },
);

/**
 * POST pods/{name}/binding: the pod bound to `nodeName`, its PodScheduled condition True.
 * A Conflict when `podUid` is not the pod's (the store's precondition, on pods), or (as
 * BindingREST words it, on pods/binding) when the pod is being deleted or already bound.
 */
export function bind(pod: KubeObject, nodeName: string, podUid: string | undefined, now: () => Date): KubeObject {
  const name = pod.metadata.name ?? "";
  if (podUid && podUid !== pod.metadata.uid) throw conflict(POD.resource, name, `Precondition failed: UID in precondition: ${podUid}, UID in object meta: ${pod.metadata.uid ?? ""}`);
  const spec = specOf(pod);
  const binding = { group: "", plural: "pods/binding", kind: "Binding" };
  if (pod.metadata.deletionTimestamp) throw conflict(binding, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  if (spec.nodeName) throw conflict(binding, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`);
  const status = asObj((pod as KubeObject & Obj).status);
  const conditions = ((status.conditions as Obj[] | undefined) ?? []).filter((c) => c.type !== "PodScheduled");
  return { ...pod, spec: { ...spec, nodeName }, status: { ...status, conditions: [...conditions, { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: timestamp(now()) }] } } as KubeObject;
}
