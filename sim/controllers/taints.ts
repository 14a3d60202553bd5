/**
 * The taints the node lifecycle controller manages and the tolerations the taint eviction
 * controller reads, over stored pods and nodes (the match itself is protocol/kube/taints.ts).
 * Pure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { toleratesTaint, type Taint, type Toleration } from "../../protocol/kube/taints.ts";
import { arr, obj, type Obj } from "./runtime.ts";

// The taint keys the node lifecycle controller manages (k8s.io/api/core/v1 well_known_taints.go).
/** A node whose Ready condition is False. */
export const NOT_READY = "node.kubernetes.io/not-ready";
/** A node whose Ready condition is Unknown (its kubelet went silent). */
export const UNREACHABLE = "node.kubernetes.io/unreachable";
/** A cordoned node (`spec.unschedulable`). */
export const UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
/** MemoryPressure=True. */
export const MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure";
/** DiskPressure=True. */
export const DISK_PRESSURE = "node.kubernetes.io/disk-pressure";
/** PIDPressure=True. */
export const PID_PRESSURE = "node.kubernetes.io/pid-pressure";
/** NetworkUnavailable=True. */
export const NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable";

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A stored toleration as the match reads it (a field that is no string is absent). */
export function asToleration(toleration: Obj): Toleration {
  return { key: text(toleration.key), operator: text(toleration.operator), value: text(toleration.value), effect: text(toleration.effect) };
}

/** A stored taint as the match reads it. */
export function asTaint(taint: Obj): Taint {
  return { key: text(taint.key) ?? "", value: text(taint.value), effect: text(taint.effect) ?? "" };
}

/**
 * `GetMatchingTolerations` (pkg/apis/core/v1/helper/helpers.go): whether every taint is
 * tolerated, and the tolerations used, which is for each taint the first toleration that
 * tolerates it (not every one that does).
 */
export function matchingTolerations(taints: readonly Obj[], tolerations: readonly Obj[]): { readonly tolerated: boolean; readonly used: Obj[] } {
  const used: Obj[] = [];
  for (const taint of taints) {
    const first = tolerations.find((t) => toleratesTaint(asToleration(t), asTaint(taint)));
    if (!first) return { tolerated: false, used: [] };
    used.push(first);
  }
  return { tolerated: true, used };
}

/**
 * `getMinTolerationTime` (pkg/controller/tainteviction/taint_eviction.go), in seconds:
 * the least `tolerationSeconds` among the tolerations that set one (those without are
 * skipped), 0 when one is `<= 0` or when there are no tolerations at all, and undefined
 * (forever) when none sets one.
 */
export function minTolerationSeconds(used: readonly Obj[]): number | undefined {
  if (used.length === 0) return 0;
  let least: number | undefined;
  for (const t of used) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    const seconds = Number(t.tolerationSeconds);
    if (seconds <= 0) return 0;
    if (least === undefined || seconds < least) least = seconds;
  }
  return least;
}

/** A node's taints of effect NoExecute (`getNoExecuteTaints`). */
export function noExecuteTaints(node: KubeObject | undefined): Obj[] {
  return arr(obj((node as Obj | undefined)?.spec).taints).filter((t) => t.effect === "NoExecute");
}

/** A pod's tolerations. */
export function tolerationsOf(pod: KubeObject): Obj[] {
  return arr(obj((pod as Obj).spec).tolerations);
}
