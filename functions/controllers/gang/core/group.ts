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
/** The largest group size we accept; a larger label is refused. */
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
  /** Why the pod's size label is refused (naming the label): the pod joins no group and is never bound until it is fixed. */
  readonly sizeRefused?: string;
}

/** What a size label gives: a size, or why it is refused. */
export type GroupSizeLabel = { readonly size: number } | { readonly refused: string };

/**
 * The group size a label value gives: absent, 1 (upstream's default); a decimal whole
 * number from 1 to MAX_GROUP_SIZE; anything else (empty, `0`, `-2`, `1.5`, `x`, `1000000`)
 * is refused, as upstream's `strconv.ParseInt` refuses what is not a number, rather than
 * taken for a group of 1 or a smaller group than asked.
 */
export function parseGroupSize(value: string | undefined): GroupSizeLabel {
  if (value === undefined) return { size: 1 };
  const size = /^\d{1,12}$/.test(value) ? Number(value) : 0;
  if (size >= 1 && size <= MAX_GROUP_SIZE) return { size };
  return { refused: `metadata.labels["${GROUP_SIZE_LABEL}"] is ${JSON.stringify(value)}: a group size is a whole number from 1 to ${MAX_GROUP_SIZE}` };
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
  const size = parseGroupSize(asString(dig(pod, "metadata", "labels", GROUP_SIZE_LABEL)));
  return "size" in size ? { namespace, name, key: `${namespace}/${name}`, size: size.size } : { namespace, name, key: `${namespace}/${name}`, size: 1, sizeRefused: size.refused };
}

/** A group a PodGroup object declares. */
function declared(namespace: string, name: string, declaredBy: DeclaringApi): GroupIdentity {
  return { namespace, name, key: `${namespace}/${name}`, size: 1, declaredBy };
}

/** Whether the pod asks for our scheduler (`schedulerName`: the configured name, `fluxnetes` by default). */
export function isOurs(pod: unknown, schedulerName: string = SCHEDULER_NAME): boolean {
  return asString(dig(pod, "spec", "schedulerName")) === schedulerName;
}
