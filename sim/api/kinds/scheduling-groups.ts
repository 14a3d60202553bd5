/**
 * KEP-4671's `scheduling.k8s.io/v1alpha2` Workload and PodGroup, as v1.36.3 serves them
 * (its declarative validation, `pkg/apis/scheduling/v1alpha2/zz_generated.validations.go`,
 * reduced to what a client meets first): a scheduling policy is exactly one of `basic` and
 * `gang`, `gang.minCount` is at least 1, the spec is immutable. A PodGroup's status is a
 * subresource (the scheduler writes `PodGroupScheduled` there). Pods name their PodGroup in
 * `spec.schedulingGroup.podGroupName` (core/v1, served with the Pod schema).
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { Cause } from "../../pipeline/errors.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

type Obj = Record<string, unknown>;

const GROUP = { group: "scheduling.k8s.io", version: "v1alpha2" };

function obj(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

/** The causes of one scheduling policy at `path`. */
function policyCauses(policy: unknown, path: string): Cause[] {
  const p = obj(policy) ?? {};
  const set = ["basic", "gang"].filter((member) => p[member] !== undefined && p[member] !== null);
  if (set.length === 0) return [{ field: path, reason: "FieldValueInvalid", message: "Invalid value: {}: must specify one of: `basic`, `gang`" }];
  if (set.length > 1) return [{ field: path, reason: "FieldValueInvalid", message: "Invalid value: {}: must specify exactly one of: `basic`, `gang`" }];
  const gang = obj(p["gang"]);
  if (gang === undefined) return [];
  const min = gang["minCount"];
  if (min === undefined) return [{ field: `${path}.gang.minCount`, reason: "FieldValueRequired", message: "Required value" }];
  return typeof min === "number" && min >= 1 ? [] : [{ field: `${path}.gang.minCount`, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(min)}: must be greater than or equal to 1` }];
}

/** The spec may not change. */
function immutableSpec(object: KubeObject, old: KubeObject | undefined): Cause[] {
  if (old === undefined || JSON.stringify((object as Obj)["spec"]) === JSON.stringify((old as Obj)["spec"])) return [];
  return [{ field: "spec", reason: "FieldValueInvalid", message: "Invalid value: \"object\": field is immutable" }];
}

/** Workloads: templates of PodGroups, each with its policy. */
export const WORKLOAD: BuiltinKind = builtinKind(
  { ...GROUP, kind: "Workload", plural: "workloads", namespaced: true, generation: true },
  {
    validate: (workload, old) => {
      const templates = obj((workload as Obj)["spec"])?.["podGroupTemplates"];
      const list = Array.isArray(templates) ? templates : [];
      const causes: Cause[] = list.length === 0 ? [{ field: "spec.podGroupTemplates", reason: "FieldValueRequired", message: "Required value" }] : [];
      list.forEach((template, i) => causes.push(...policyCauses(obj(template)?.["schedulingPolicy"], `spec.podGroupTemplates[${i}].schedulingPolicy`)));
      return [...causes, ...immutableSpec(workload, old)];
    },
  },
);

/** PodGroups: the runtime groups pods name. */
export const POD_GROUP: BuiltinKind = builtinKind(
  { ...GROUP, kind: "PodGroup", plural: "podgroups", namespaced: true, status: true, generation: true },
  { validate: (podGroup, old) => [...policyCauses(obj((podGroup as Obj)["spec"])?.["schedulingPolicy"], "spec.schedulingPolicy"), ...immutableSpec(podGroup, old)] },
);
