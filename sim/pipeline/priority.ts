/**
 * PriorityClasses (scheduling.k8s.io/v1) and the Priority admission plugin, as
 * kube-apiserver v1.32 has them: the two system classes, the class's decoding, defaulting
 * and validation, the one-global-default rule, and the pod admission that resolves
 * `spec.priorityClassName` into `spec.priority` and `spec.preemptionPolicy`. Pure: the
 * Priority admission step (sim/api/admission/priority.ts) passes in the stored classes.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError } from "../contract.ts";
import { asObj, type Obj } from "../api/objects.ts";
import { forbidden, type Cause } from "./errors.ts";

/** The highest value a user-defined class may have (`HighestUserDefinablePriority`). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** `SystemCriticalPriority`: the value of system-cluster-critical; system-node-critical is 1000 above. */
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
/** The apiVersion/kind of PriorityClass. */
export const PRIORITY_CLASS = { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass" } as const;
/** The store table of PriorityClasses. */
export const PRIORITY_CLASSES = "scheduling.k8s.io/priorityclasses";

const SYSTEM_PREFIX = "system-";
const PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority";
const PREEMPTION_POLICIES = [PREEMPT_LOWER_PRIORITY, "Never"];
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

interface SystemClass {
  readonly name: string;
  readonly value: number;
  readonly description: string;
}

const SYSTEM_CLASSES: readonly SystemClass[] = [
  { name: "system-node-critical", value: SYSTEM_CRITICAL_PRIORITY + 1000, description: "Used for system critical pods that must not be moved from their current node." },
  { name: "system-cluster-critical", value: SYSTEM_CRITICAL_PRIORITY, description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary." },
];

/** Whether a store table / resource is PriorityClasses. */
export function isPriorityClass(resource: { readonly group: string; readonly plural: string }): boolean {
  return resource.group === "scheduling.k8s.io" && resource.plural === "priorityclasses";
}

/** The system classes kube-apiserver's post-start hook creates when missing, as stored (defaulted). */
export function systemPriorityClasses(): KubeObject[] {
  return SYSTEM_CLASSES.map((c) => ({ ...PRIORITY_CLASS, metadata: { name: c.name }, value: c.value, description: c.description, preemptionPolicy: PREEMPT_LOWER_PRIORITY }) as KubeObject);
}

// ---- decoding and defaulting ---------------------------------------------------------

/** What Go's JSON decoder says of a value that does not fit the field. */
function cannotUnmarshal(field: string, value: unknown, goType: string): ApiError {
  const what = typeof value === "number" ? `number ${String(value)}` : Array.isArray(value) ? "array" : value === null ? "null" : typeof value === "object" ? "object" : typeof value;
  return new ApiError(400, "BadRequest", `PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot unmarshal ${what} into Go struct field PriorityClass.${field} of type ${goType}`);
}

/** Decoding: 400 when a field's JSON type is not its Go type (`value` must be an int32). */
export function checkPriorityClassTypes(object: KubeObject): void {
  const o = object as KubeObject & Obj;
  const value = o.value;
  if (value !== undefined && value !== null && (typeof value !== "number" || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX)) throw cannotUnmarshal("value", value, "int32");
  if (o.globalDefault !== undefined && o.globalDefault !== null && typeof o.globalDefault !== "boolean") throw cannotUnmarshal("globalDefault", o.globalDefault, "bool");
  for (const field of ["description", "preemptionPolicy"]) {
    const v = o[field];
    if (v !== undefined && v !== null && typeof v !== "string") throw cannotUnmarshal(field, v, field === "preemptionPolicy" ? "v1.PreemptionPolicy" : "string");
  }
}

/**
 * The class as Go decodes, defaults and writes it: `value` always there (0 when absent),
 * `preemptionPolicy` defaulted to PreemptLowerPriority, `globalDefault: false` and an
 * empty description left out (`omitempty`).
 */
export function defaultPriorityClass(object: KubeObject): KubeObject {
  const o: Obj = { ...(object as KubeObject & Obj) };
  o.value = typeof o.value === "number" ? o.value : 0;
  if (o.globalDefault !== true) delete o.globalDefault;
  if (typeof o.description !== "string" || o.description === "") delete o.description;
  if (typeof o.preemptionPolicy !== "string") o.preemptionPolicy = PREEMPT_LOWER_PRIORITY;
  return o as KubeObject;
}

// ---- validation ----------------------------------------------------------------------

function forbiddenCause(field: string, detail: string): Cause {
  return { field, reason: "FieldValueForbidden", message: `Forbidden: ${detail}` };
}

/** `IsKnownSystemPriorityClass`: why a `system-` class is not one of the system classes, if it is not. */
function unknownSystemClass(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = SYSTEM_CLASSES.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

/**
 * `ValidatePriorityClass` (and on update `ValidatePriorityClassUpdate`): `system-` names
 * reserved, user values at most 1,000,000,000, a supported preemptionPolicy; `value` and
 * `preemptionPolicy` immutable. Metadata is validated with every kind's.
 */
export function priorityClassCauses(object: KubeObject, old?: KubeObject): Cause[] {
  const o = object as KubeObject & Obj;
  const name = object.metadata.name ?? "";
  const value = typeof o.value === "number" ? o.value : 0;
  const causes: Cause[] = [];
  if (name.startsWith(SYSTEM_PREFIX)) {
    const why = unknownSystemClass(name, value, o.globalDefault === true);
    if (why) causes.push(forbiddenCause("metadata.name", `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${why}`));
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    causes.push(forbiddenCause("value", `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = o.preemptionPolicy;
  if (typeof policy === "string") {
    if (policy === "") causes.push({ field: "preemptionPolicy", reason: "FieldValueRequired", message: "Required value" });
    else if (!PREEMPTION_POLICIES.includes(policy)) {
      causes.push({ field: "preemptionPolicy", reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${PREEMPTION_POLICIES.map((p) => JSON.stringify(p)).join(", ")}` });
    }
  }
  if (old) {
    const before = old as KubeObject & Obj;
    if (value !== (typeof before.value === "number" ? before.value : 0)) causes.push(forbiddenCause("value", "may not be changed in an update."));
    if (policy !== before.preemptionPolicy) causes.push({ field: "preemptionPolicy", reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(policy ?? null)}: field is immutable` });
  }
  return causes;
}

// ---- admission -----------------------------------------------------------------------

/** The global default class; with several (a race upstream allows), the lowest value. */
export function globalDefaultClass(classes: readonly KubeObject[]): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const c of classes) {
    if ((c as KubeObject & Obj).globalDefault !== true) continue;
    if (!found || valueOf(c) < valueOf(found)) found = c;
  }
  return found;
}

const valueOf = (c: KubeObject): number => Number((c as KubeObject & Obj).value ?? 0);

/** 403 as `admission.NewForbidden` words it: `<resource> "<name>" is forbidden: <why>`. */
function admissionForbidden(qualifiedResource: string, group: string, name: string, why: string): ApiError {
  return forbidden(`${qualifiedResource} "${name}" is forbidden: ${why}`, { name, group, kind: qualifiedResource.split(".")[0] });
}

/**
 * The Priority plugin on a PriorityClass create or update: only one class may be the
 * global default (403 otherwise). Returns the error, if any.
 */
export function globalDefaultConflict(object: KubeObject, operation: "CREATE" | "UPDATE", classes: readonly KubeObject[]): ApiError | undefined {
  if ((object as KubeObject & Obj).globalDefault !== true) return undefined;
  const existing = globalDefaultClass(classes);
  if (!existing) return undefined;
  const name = object.metadata.name ?? "";
  if (operation === "UPDATE" && existing.metadata.name === name) return undefined;
  return admissionForbidden("priorityclasses.scheduling.k8s.io", "scheduling.k8s.io", name, `PriorityClass ${existing.metadata.name ?? ""} is marked as default. Only one default can exist`);
}

/** The PriorityClass storage's refusal to delete a system class, if `name` is one. */
export function systemClassDeletion(name: string): ApiError | undefined {
  if (!SYSTEM_CLASSES.some((c) => c.name === name)) return undefined;
  return admissionForbidden("priorityclasses.scheduling.k8s.io", "scheduling.k8s.io", name, "this is a system priority class and cannot be deleted");
}

/**
 * The Priority plugin on a pod CREATE: `spec.priorityClassName` resolved (403 when no such
 * class), else the global default class (its name set too), else priority 0 and
 * PreemptLowerPriority; `spec.priority` and `spec.preemptionPolicy` set from it. A pod that
 * brings a different priority or preemptionPolicy itself is refused (403). `name` is how
 * the error names the pod (its generateName before one is generated, as upstream).
 */
export function admitPodPriority(pod: KubeObject, classes: readonly KubeObject[], name: string): KubeObject {
  const o = pod as KubeObject & Obj;
  const spec = asObj(o.spec);
  const className = typeof spec.priorityClassName === "string" ? spec.priorityClassName : "";
  let resolved: KubeObject | undefined;
  if (className === "") resolved = globalDefaultClass(classes);
  else {
    resolved = classes.find((c) => c.metadata.name === className);
    if (!resolved) throw admissionForbidden("pods", "", name, `no PriorityClass with name ${className} was found`);
  }
  const priority = resolved ? valueOf(resolved) : 0;
  const policy = resolved ? String((resolved as KubeObject & Obj).preemptionPolicy ?? PREEMPT_LOWER_PRIORITY) : PREEMPT_LOWER_PRIORITY;
  if (typeof spec.priority === "number" && spec.priority !== priority) {
    throw admissionForbidden("pods", "", name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  if (typeof spec.preemptionPolicy === "string" && spec.preemptionPolicy !== policy) {
    throw admissionForbidden("pods", "", name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
  }
  const named = className === "" && resolved ? { priorityClassName: resolved.metadata.name ?? "" } : {};
  return { ...o, spec: { ...spec, ...named, priority, preemptionPolicy: policy } } as KubeObject;
}

/**
 * The Priority plugin on a pod UPDATE: a body without `spec.priority` or
 * `spec.preemptionPolicy` keeps the stored ones (create set them; a client replacing
 * the pod from its own manifest does not know them).
 */
export function keepPodPriority(pod: KubeObject, old: KubeObject): KubeObject {
  const spec = asObj((pod as KubeObject & Obj).spec);
  const before = asObj((old as KubeObject & Obj).spec);
  const kept: Obj = {};
  if (spec.priority === undefined && before.priority !== undefined) kept.priority = before.priority;
  if (spec.preemptionPolicy === undefined && before.preemptionPolicy !== undefined) kept.preemptionPolicy = before.preemptionPolicy;
  if (Object.keys(kept).length === 0) return pod;
  return { ...pod, spec: { ...spec, ...kept } } as KubeObject;
}
