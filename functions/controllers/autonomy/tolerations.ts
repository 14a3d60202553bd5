/**
 * The not-ready/unreachable NoExecute tolerations of a pod as its node's autonomy wants
 * them. Only `tolerationSeconds` of tolerations the pod already has is ever changed: the
 * API server refuses any other edit of an existing pod's tolerations, and a toleration
 * added or removed could not be undone the same way, so none is (not even at creation).
 *
 * Originals are kept in the pod annotations OpenYurt uses, one per taint, written before
 * the first change of that taint's tolerations and removed when they are restored:
 * - the decimal number of seconds (`"300"`, `"-1"`), or
 * - `""` when the pod tolerated the taint with no seconds (forever). Upstream dereferenced
 *   the missing seconds and crashed; here it is a value like any other.
 *
 * When a pod has several tolerations of one taint, all of them get the target, and the
 * original kept is what the taint manager made of them: the smallest of their seconds
 * (`""` when none has any). Restoring every one of them to it evicts at the same time as
 * the originals did.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { JsonPatchOperation } from "../../kit/admission.ts";
import { pointerSegment } from "../../kit/admission.ts";
import { deepEqual } from "../../kit/merge-patch.ts";
import { NOT_READY_TAINT, ORIGINAL_NOT_READY, ORIGINAL_UNREACHABLE, UNREACHABLE_TAINT } from "./names.ts";

/**
 * What a pod's tolerations should be: `set` to `seconds` (`undefined`: no seconds, never
 * evicted), or `restore`d to the originals kept in its annotations.
 */
export type Target = { readonly kind: "set"; readonly seconds: number | undefined } | { readonly kind: "restore" };

/**
 * A change of a pod: its whole new `tolerations` list (a merge patch replaces a list
 * whole), and the annotations to write (`null`: remove).
 */
export interface TolerationChange {
  readonly tolerations: unknown[];
  readonly annotations: Record<string, string | null>;
}

/** The pod annotation the kubelet puts on a mirror pod (the API server's copy of a static pod). */
export const MIRROR_POD = "kubernetes.io/config.mirror";

/**
 * What a kept original that is not a number (edited by hand) restores to: the seconds the
 * DefaultTolerationSeconds admission plugin gives every pod.
 */
export const DEFAULT_TOLERATION_SECONDS = 300;

/** The two taints concerned, each with the annotation keeping its tolerations' original seconds. */
const TAINTS: readonly { readonly taint: string; readonly annotation: string }[] = [
  { taint: NOT_READY_TAINT, annotation: ORIGINAL_NOT_READY },
  { taint: UNREACHABLE_TAINT, annotation: ORIGINAL_UNREACHABLE },
];

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The pod's tolerations as they are (an empty list when it has none). */
export function tolerationsOf(pod: KubeObject): unknown[] {
  const spec = pod["spec"];
  const tolerations = isObject(spec) ? spec["tolerations"] : undefined;
  return Array.isArray(tolerations) ? tolerations : [];
}

/** Whether the pod is never touched: owned by a DaemonSet (it must stay on its node anyway) or a mirror pod. */
export function isLeftAlone(pod: KubeObject): boolean {
  if ((pod.metadata.ownerReferences ?? []).some((ref) => ref.kind === "DaemonSet")) return true;
  return (pod.metadata.annotations?.[MIRROR_POD] ?? "") !== "";
}

/** The taint a toleration is about when it is a concerned one (NoExecute, key not-ready or unreachable, operator Exists or Equal), else `undefined`. */
function taintOf(toleration: unknown): string | undefined {
  if (!isObject(toleration) || toleration["effect"] !== "NoExecute") return undefined;
  const operator = toleration["operator"] ?? "Equal";
  if (operator !== "Exists" && operator !== "Equal") return undefined;
  const key = toleration["key"];
  return key === NOT_READY_TAINT || key === UNREACHABLE_TAINT ? key : undefined;
}

/** A toleration's seconds (`undefined`: none, forever). */
function secondsOf(toleration: Obj): number | undefined {
  const seconds = toleration["tolerationSeconds"];
  return typeof seconds === "number" ? seconds : undefined;
}

/** The toleration with `seconds` (the field omitted for `undefined`), everything else as it was. */
function withSeconds(toleration: Obj, seconds: number | undefined): Obj {
  const { tolerationSeconds: _old, ...rest } = toleration;
  return seconds === undefined ? rest : { ...rest, tolerationSeconds: seconds };
}

/** The original to keep for `taint`: the smallest seconds of its tolerations, `""` when none has any. */
function originalOf(tolerations: readonly unknown[], taint: string): string {
  const seconds = tolerations.filter((t): t is Obj => taintOf(t) === taint).map(secondsOf);
  const finite = seconds.filter((s): s is number => s !== undefined);
  return finite.length === 0 ? "" : String(Math.min(...finite));
}

/** The seconds a kept original stands for: `""` is none; a value that is not an integer is {@link DEFAULT_TOLERATION_SECONDS}. */
export function keptSeconds(original: string): number | undefined {
  if (original === "") return undefined;
  return /^-?\d{1,18}$/.test(original) ? Number(original) : DEFAULT_TOLERATION_SECONDS;
}

/** `tolerations` with every concerned toleration of `taint` at `seconds`. */
function setTaint(tolerations: readonly unknown[], taint: string, seconds: number | undefined): unknown[] {
  return tolerations.map((t) => (taintOf(t) === taint ? withSeconds(t as Obj, seconds) : t));
}

/** `set`: each taint whose tolerations are not at `seconds` gets them there, its original kept first. */
function setAll(pod: KubeObject, seconds: number | undefined): TolerationChange {
  const annotations = pod.metadata.annotations ?? {};
  let tolerations = tolerationsOf(pod);
  const kept: Record<string, string> = {};
  for (const { taint, annotation } of TAINTS) {
    const next = setTaint(tolerations, taint, seconds);
    if (deepEqual(next, tolerations)) continue;
    if (annotations[annotation] === undefined) kept[annotation] = originalOf(tolerations, taint);
    tolerations = next;
  }
  return { tolerations, annotations: kept };
}

/** `restore`: each taint with a kept original gets it back, and the annotation goes. */
function restoreAll(pod: KubeObject): TolerationChange {
  const annotations = pod.metadata.annotations ?? {};
  let tolerations = tolerationsOf(pod);
  const removed: Record<string, null> = {};
  for (const { taint, annotation } of TAINTS) {
    const original = annotations[annotation];
    if (original === undefined) continue;
    tolerations = setTaint(tolerations, taint, keptSeconds(original));
    removed[annotation] = null;
  }
  return { tolerations, annotations: removed };
}

/**
 * How a pod's tolerations and annotations change to meet `target`, or `undefined` when
 * nothing changes (DaemonSet and mirror pods: never). `set` changes the seconds of the
 * concerned tolerations (a pod without one is left as it is) and keeps each taint's
 * original the first time; `restore` puts the kept originals back and removes their
 * annotations.
 */
export function tolerationChange(pod: KubeObject, target: Target): TolerationChange | undefined {
  if (isLeftAlone(pod)) return undefined;
  const change = target.kind === "set" ? setAll(pod, target.seconds) : restoreAll(pod);
  if (Object.keys(change.annotations).length === 0 && deepEqual(change.tolerations, tolerationsOf(pod))) return undefined;
  return change;
}

/**
 * The JSON merge patch of a change: the tolerations only when they differ (a merge patch
 * replaces the list whole), the annotations only when some change.
 */
export function tolerationMergePatch(pod: KubeObject, change: TolerationChange): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (Object.keys(change.annotations).length > 0) patch["metadata"] = { annotations: change.annotations };
  if (!deepEqual(change.tolerations, tolerationsOf(pod))) patch["spec"] = { tolerations: change.tolerations };
  return patch;
}

/** JSONPatch operations writing `annotations` (`null`: remove) to an object that may have none yet. */
function annotationOperations(pod: KubeObject, annotations: Record<string, string | null>): JsonPatchOperation[] {
  const current = pod.metadata.annotations;
  if (current === undefined) {
    const added = Object.fromEntries(Object.entries(annotations).filter(([, value]) => value !== null));
    return Object.keys(added).length === 0 ? [] : [{ op: "add", path: "/metadata/annotations", value: added }];
  }
  return Object.entries(annotations).flatMap(([key, value]): JsonPatchOperation[] => {
    const path = `/metadata/annotations/${pointerSegment(key)}`;
    if (value !== null) return [{ op: "add", path, value }];
    return current[key] === undefined ? [] : [{ op: "remove", path }];
  });
}

/**
 * The JSONPatch a mutating webhook returns for a pod being created (none: admit it as it
 * is). At CREATE the pod already has the DefaultTolerationSeconds plugin's 300 s
 * tolerations, or its own: the same rule as for an existing pod applies (only seconds
 * change, originals kept), so that the controller can restore them later.
 */
export function tolerationsAtCreate(pod: KubeObject, target: Target): JsonPatchOperation[] {
  const change = tolerationChange(pod, target);
  if (change === undefined) return [];
  const operations: JsonPatchOperation[] = [];
  // `add` on a member that exists replaces it.
  if (!deepEqual(change.tolerations, tolerationsOf(pod))) operations.push({ op: "add", path: "/spec/tolerations", value: change.tolerations });
  return [...operations, ...annotationOperations(pod, change.annotations)];
}
