/**
 * The `scale` subresource of Deployments and ReplicaSets (autoscaling/v1 Scale), as
 * `kubectl scale` and HorizontalPodAutoscalers use it.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { formatLabelRequirements, requirementsOfLabelSelector, type LabelSelectorObject } from "../../protocol/kube/selectors.ts";
import { ApiError } from "../contract.ts";
import { jsonPatch } from "../patch/json.ts";
import { applyMergePatch } from "../patch/merge.ts";

type Obj = Record<string, unknown>;
const asObj = (value: unknown): Obj => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : {});

/** A workload's label selector as the string Scale.status.selector carries (`Selector.String`). */
function selectorString(selector: unknown): string {
  return formatLabelRequirements(requirementsOfLabelSelector(asObj(selector) as LabelSelectorObject));
}

/** The Scale view of a workload. */
export function toScale(object: KubeObject): Obj {
  const spec = asObj((object as Obj).spec);
  const status = asObj((object as Obj).status);
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    // ScaleSpec.replicas is `omitempty`: 0 is left out, as kube-apiserver encodes it.
    spec: Number(spec.replicas ?? 1) === 0 ? {} : { replicas: Number(spec.replicas ?? 1) },
    status: { replicas: Number(status.replicas ?? 0), selector: selectorString(spec.selector) },
  };
}

/** The replica count a Scale body (after a patch, for PATCH) asks for; 422 when it is not a count. */
export function requestedReplicas(scale: unknown): number {
  // ScaleSpec.replicas is `omitempty`: a Go client's PUT of 0 replicas leaves the field out.
  const replicas = asObj(asObj(scale).spec).replicas ?? 0;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    throw new ApiError(422, "Invalid", `Scale.autoscaling "${String(asObj(asObj(scale).metadata).name ?? "")}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be a non-negative integer`);
  }
  return replicas;
}

/** Applies a PATCH body to the current Scale. */
export function patchScale(current: Obj, patch: unknown, type: string): Obj {
  if (type === "json") return asObj(jsonPatch(current, patch));
  return asObj(applyMergePatch(current, patch));
}

/** Where a custom resource keeps its replica counts (a CRD version's `subresources.scale`). */
export interface ScalePaths {
  /** `.spec.replicas`-style JSON paths. */
  readonly spec: string;
  readonly status: string;
  readonly selector?: string;
}

function valueAt(object: unknown, path: string): unknown {
  return path.replace(/^\./, "").split(".").reduce<unknown>((value, key) => asObj(value)[key], object);
}

/** The Scale view of a custom resource (a missing count is 0; `status.selector` only with a labelSelectorPath). */
export function toCustomScale(object: KubeObject, paths: ScalePaths): Obj {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  const replicas = Number(valueAt(object, paths.spec) ?? 0);
  const selector = paths.selector ? valueAt(object, paths.selector) : undefined;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: replicas === 0 ? {} : { replicas },
    status: { replicas: Number(valueAt(object, paths.status) ?? 0), ...(typeof selector === "string" ? { selector } : {}) },
  };
}

/** A merge patch setting the value at `path` (`.spec.size` → `{ spec: { size } }`). */
export function patchAt(path: string, value: unknown): Obj {
  return path
    .replace(/^\./, "")
    .split(".")
    .reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Obj;
}
