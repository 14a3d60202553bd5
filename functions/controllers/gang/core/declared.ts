/**
 * Groups declared by a PodGroup object (ADR 0026): scheduler-plugins' `PodGroup`
 * (`scheduling.x-k8s.io/v1alpha1`, `spec.minMember`, `spec.scheduleTimeoutSeconds`) or the
 * native one of KEP-4671 (`scheduling.k8s.io/v1alpha2`, `spec.schedulingPolicy.gang.minCount`,
 * or `basic`: no gang). The objects are parsed once into records the queue object stores;
 * a pass resolves the size of each such group from them. A pod naming a PodGroup that does
 * not exist (yet) waits, as coscheduling's pods do.
 */
import { MAX_GROUP_SIZE, type DeclaringApi, type GroupIdentity } from "./group.ts";
import { asNumber, asString, dig } from "./read.ts";
import type { PodRecord } from "./records.ts";

/** The API group and version of each declaring API, as watched. */
export const DECLARING_API_VERSIONS: Readonly<Record<DeclaringApi, string>> = {
  "scheduler-plugins": "scheduling.x-k8s.io/v1alpha1",
  native: "scheduling.k8s.io/v1alpha2",
};

/** What a pass reads of a PodGroup object. */
export interface DeclaredGroup {
  readonly api: DeclaringApi;
  readonly namespace: string;
  readonly name: string;
  /** `namespace/name`: the key of the group it declares. */
  readonly key: string;
  /** How many pods the group needs: `minMember`, `gang.minCount`, 1 for a `basic` policy (1..MAX_GROUP_SIZE). */
  readonly size: number;
  /** scheduler-plugins' `spec.scheduleTimeoutSeconds`, when set and positive: the group's arrival timeout here. */
  readonly scheduleTimeoutSeconds: number | undefined;
  /** Why its count is refused (naming the field): above MAX_GROUP_SIZE or not whole. Its pods are refused, never bound. */
  readonly sizeRefused?: string;
}

/** The size of a group as its declaring object gives it, or undefined while that object is unknown. */
export type GroupSizes = (group: GroupIdentity) => number | undefined;

/**
 * A count from an object's `field`: absent, 0 or less, 1 (the CRDs refuse those below 1;
 * upstream manifests that leave it out keep working); a whole number up to MAX_GROUP_SIZE
 * as it is; anything else refused, naming the field, rather than clamped.
 */
function count(value: unknown, field: string): { readonly size: number; readonly sizeRefused?: string } {
  const n = asNumber(value);
  if (n === undefined || n < 1) return { size: 1 };
  if (Number.isInteger(n) && n <= MAX_GROUP_SIZE) return { size: n };
  return { size: 1, sizeRefused: `${field} is ${String(n)}: a group size is a whole number from 1 to ${MAX_GROUP_SIZE}` };
}

/** A PodGroup object of `api` as a record (undefined without a name). */
export function parseDeclaredGroup(api: DeclaringApi, object: unknown): DeclaredGroup | undefined {
  const name = asString(dig(object, "metadata", "name")) ?? "";
  if (name === "") return undefined;
  const namespace = asString(dig(object, "metadata", "namespace")) || "default";
  const timeout = api === "scheduler-plugins" ? asNumber(dig(object, "spec", "scheduleTimeoutSeconds")) : undefined;
  // A native PodGroup without a gang policy is `basic`: its pods are not held for each other.
  const size = api === "scheduler-plugins" ? count(dig(object, "spec", "minMember"), "spec.minMember") : count(dig(object, "spec", "schedulingPolicy", "gang", "minCount"), "spec.schedulingPolicy.gang.minCount");
  return { api, namespace, name, key: `${namespace}/${name}`, ...size, scheduleTimeoutSeconds: timeout !== undefined && timeout > 0 ? Math.trunc(timeout) : undefined };
}

/** The lookup key of a declaring object: its API and `namespace/name`. */
export function declaredKey(api: DeclaringApi, key: string): string {
  return `${api}|${key}`;
}

/** Group sizes from the declaring objects known. */
export function declaredSizes(groups: Iterable<DeclaredGroup>): GroupSizes {
  const byKey = new Map<string, number>();
  for (const group of groups) byKey.set(declaredKey(group.api, group.key), group.size);
  return (group) => (group.declaredBy === undefined ? group.size : byKey.get(declaredKey(group.declaredBy, group.key)));
}

/** Why a pod's declaring PodGroup is refused (`PodGroup <namespace>/<name>: <field> is ...`), by the pod's group; undefined when it is not. */
export type GroupRefusals = (group: GroupIdentity) => string | undefined;

/** The refusals of the declaring objects known. */
export function declaredRefusals(groups: Iterable<DeclaredGroup>): GroupRefusals {
  const byKey = new Map<string, string>();
  for (const group of groups) if (group.sizeRefused !== undefined) byKey.set(declaredKey(group.api, group.key), `PodGroup ${group.key}: ${group.sizeRefused}`);
  return (group) => (group.declaredBy === undefined ? undefined : byKey.get(declaredKey(group.declaredBy, group.key)));
}

/**
 * The size a group's pods need: the largest any of them declares, through its labels or
 * its PodGroup object; undefined while a pod names a PodGroup not known (the group waits).
 * Without `sizes`, every PodGroup is unknown.
 */
export function groupSize(members: readonly PodRecord[], sizes: GroupSizes | undefined): number | undefined {
  let size = 1;
  for (const pod of members) {
    const declared = pod.group.declaredBy === undefined ? pod.group.size : sizes?.(pod.group);
    if (declared === undefined) return undefined;
    size = Math.max(size, declared);
  }
  return size;
}
