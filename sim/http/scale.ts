/**
 * The `scale` subresource of Deployments and ReplicaSets (autoscaling/v1 Scale), as
 * `kubectl scale` and HorizontalPodAutoscalers use it.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError } from "../contract.ts";
import { jsonPatch } from "../patch/json.ts";
import { applyMergePatch } from "../patch/merge.ts";

type Obj = Record<string, unknown>;
const asObj = (value: unknown): Obj => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : {});

/** A label selector's matchLabels as the string Scale.status.selector carries. */
function selectorString(selector: unknown): string {
  const matchLabels = asObj(asObj(selector).matchLabels);
  const expressions = (asObj(selector).matchExpressions as Obj[] | undefined) ?? [];
  const parts = Object.entries(matchLabels).map(([k, v]) => `${k}=${String(v)}`);
  for (const e of expressions) {
    const values = ((e.values as string[] | undefined) ?? []).join(",");
    if (e.operator === "In") parts.push(`${String(e.key)} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${String(e.key)} notin (${values})`);
    else if (e.operator === "Exists") parts.push(String(e.key));
    else if (e.operator === "DoesNotExist") parts.push(`!${String(e.key)}`);
  }
  return parts.join(",");
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
