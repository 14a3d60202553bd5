/**
 * A pod's gang: which group it belongs to, and whether the pod is ours at all. A group is
 * declared one of three ways (ADR 0026), looked at in this order: the pod names a native
 * PodGroup (`spec.schedulingGroup.podGroupName`, KEP-4671), or carries the
 * scheduler-plugins label (`scheduling.x-k8s.io/pod-group`), or the Fluxnetes labels (a
 * group of one without them). A group declared by a PodGroup object has its size in that
 * object, resolved when a pass gathers groups (`declared.ts`); the labels carry theirs.
 */
import { asString, dig } from "./read.ts";

/** The default scheduler name: pods with `spec.schedulerName` set to it are ours (a setting, `settings.ts`). */
export const SCHEDULER_NAME = "fluxnetes";
/** The scheduler-plugins label naming a pod's PodGroup (`scheduling.x-k8s.io/v1alpha1`). */
export const POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group";

/** Which PodGroup object declares a group: scheduler-plugins' CRD, or the native `scheduling.k8s.io` one. */
export type DeclaringApi = "scheduler-plugins" | "native";
/** The label naming a pod's group (default `fluxnetes-group-<namespace>-<pod name>`, a group of one). */
export const GROUP_NAME_LABEL = "fluxnetes.group-name";
/** The label giving the group's size (default 1). */
export const GROUP_SIZE_LABEL = "fluxnetes.group-size";
/** The largest group size we accept; a larger label is clamped to it. */
export const MAX_GROUP_SIZE = 10_000;

/** A pod's group. */
export interface GroupIdentity {
  readonly namespace: string;
  /** The group's name, from the label or the default. */
  readonly name: string;
  /** `namespace/name`: the key groups are stored, ordered and reported by. */
  readonly key: string;
  /**
   * How many pods the group needs before it may be scheduled (1..MAX_GROUP_SIZE), from the
   * label; for a group declared by a PodGroup, 1 here: its size is the object's.
   */
  readonly size: number;
  /** Set when a PodGroup object declares the group (absent: the Fluxnetes labels do). */
  readonly declaredBy?: DeclaringApi;
}

/** The group size a label value gives: a positive decimal integer clamped to MAX_GROUP_SIZE; anything else (absent, 0, `-2`, `1.5`, `x`) is 1. */
export function parseGroupSize(value: string | undefined): number {
  if (value === undefined || !/^\+?\d{1,12}$/.test(value.trim())) return 1;
  const size = Number(value.trim());
  return size < 1 ? 1 : Math.min(size, MAX_GROUP_SIZE);
}

/** The group a pod belongs to. */
export function groupOf(pod: unknown): GroupIdentity {
  const namespace = asString(dig(pod, "metadata", "namespace")) || "default";
  const native = asString(dig(pod, "spec", "schedulingGroup", "podGroupName"));
  if (native !== undefined && native !== "") return declared(namespace, native, "native");
  const coscheduled = asString(dig(pod, "metadata", "labels", POD_GROUP_LABEL));
  if (coscheduled !== undefined && coscheduled !== "") return declared(namespace, coscheduled, "scheduler-plugins");
  const podName = asString(dig(pod, "metadata", "name")) ?? "";
  const labelled = asString(dig(pod, "metadata", "labels", GROUP_NAME_LABEL));
  const name = labelled !== undefined && labelled !== "" ? labelled : `fluxnetes-group-${namespace}-${podName}`;
  return { namespace, name, key: `${namespace}/${name}`, size: parseGroupSize(asString(dig(pod, "metadata", "labels", GROUP_SIZE_LABEL))) };
}

/** A group a PodGroup object declares. */
function declared(namespace: string, name: string, declaredBy: DeclaringApi): GroupIdentity {
  return { namespace, name, key: `${namespace}/${name}`, size: 1, declaredBy };
}

/** Whether the pod asks for our scheduler (`schedulerName`: the configured name, `fluxnetes` by default). */
export function isOurs(pod: unknown, schedulerName: string = SCHEDULER_NAME): boolean {
  return asString(dig(pod, "spec", "schedulerName")) === schedulerName;
}
