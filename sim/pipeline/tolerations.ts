/**
 * Pod tolerations in the API server, as kube-apiserver v1.32 has them: the
 * DefaultTolerationSeconds admission plugin
 * (plugin/pkg/admission/defaulttolerationseconds/admission.go), and the validation of
 * tolerations (`ValidateTolerations`) and of their updates (`validateOnlyAddedTolerations`)
 * from pkg/apis/core/validation/validation.go. Pure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { asObj, type Obj } from "../api/objects.ts";
import type { Cause } from "./errors.ts";
import { isQualifiedName, isValidLabelValue } from "../../protocol/kube/names.ts";

/** kube-apiserver's `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`. */
export const DEFAULT_TOLERATION_SECONDS = 300;

/** The seconds of the two tolerations DefaultTolerationSeconds adds. */
export interface DefaultTolerations {
  readonly notReadySeconds: number;
  readonly unreachableSeconds: number;
}

const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.map(asObj) : []);
const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** Whether a toleration counts, for the plugin, as one for the NoExecute taint `key`: that key or none, effect NoExecute or none (operator and value are not looked at). */
function coversNoExecute(toleration: Obj, key: string): boolean {
  const tKey = str(toleration.key);
  const effect = str(toleration.effect);
  return (tKey === key || tKey === "") && (effect === "NoExecute" || effect === "");
}

/**
 * The DefaultTolerationSeconds plugin, on a pod's CREATE and UPDATE (not its
 * subresources): `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable`
 * NoExecute tolerations (operator Exists) for `seconds`, appended unless the pod has one
 * for that taint already. Upstream runs it after Priority, before the mutating webhooks.
 */
export function defaultTolerationSeconds(pod: KubeObject, seconds: DefaultTolerations = { notReadySeconds: DEFAULT_TOLERATION_SECONDS, unreachableSeconds: DEFAULT_TOLERATION_SECONDS }): KubeObject {
  const o = pod as KubeObject & Obj;
  const spec = asObj(o.spec);
  const tolerations = list(spec.tolerations);
  const added: Obj[] = [];
  if (!tolerations.some((t) => coversNoExecute(t, "node.kubernetes.io/not-ready"))) {
    added.push({ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds.notReadySeconds });
  }
  if (!tolerations.some((t) => coversNoExecute(t, "node.kubernetes.io/unreachable"))) {
    added.push({ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds.unreachableSeconds });
  }
  if (added.length === 0) return pod;
  return { ...o, spec: { ...spec, tolerations: [...tolerations, ...added] } } as KubeObject;
}

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/**
 * How Go prints an internal `core.Toleration` as a field error's value (JSON of the
 * untagged struct).
 */
function goToleration(t: Obj): string {
  const seconds = t.tolerationSeconds === undefined || t.tolerationSeconds === null ? null : t.tolerationSeconds;
  return JSON.stringify({ Key: str(t.key), Operator: str(t.operator), Value: str(t.value), Effect: str(t.effect), TolerationSeconds: seconds });
}

/**
 * `ValidateTolerations`: keys are qualified names; an empty key needs operator Exists;
 * `tolerationSeconds` only with effect NoExecute; Equal (or empty) needs a label value,
 * Exists no value; the effect, when given, one of the three.
 */
export function validateTolerations(tolerations: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  list(tolerations).forEach((t, i) => {
    const at = `${path}[${i}]`;
    const key = str(t.key);
    const operator = str(t.operator);
    const effect = str(t.effect);
    const value = str(t.value);
    for (const m of key ? isQualifiedName(key) : []) causes.push({ field: `${at}.key`, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(key)}: ${m}` });
    if (!key && operator !== "Exists") {
      causes.push({ field: `${at}.operator`, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(operator)}: operator must be Exists when \`key\` is empty, which means "match all values and all keys"` });
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== "NoExecute") {
      causes.push({ field: `${at}.effect`, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(effect)}: effect must be 'NoExecute' when \`tolerationSeconds\` is set` });
    }
    if (operator === "" || operator === "Equal") {
      const problems = isValidLabelValue(value);
      if (problems.length > 0) causes.push({ field: `${at}.operator`, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(value)}: ${problems.join(";")}` });
    } else if (operator === "Exists") {
      if (value) causes.push({ field: `${at}.operator`, reason: "FieldValueInvalid", message: `Invalid value: ${goToleration(t)}: value must be empty when \`operator\` is 'Exists'` });
    } else {
      causes.push({ field: `${at}.operator`, reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(operator)}: supported values: "Equal", "Exists"` });
    }
    if (effect && !EFFECTS.includes(effect)) {
      causes.push({ field: `${at}.effect`, reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(effect)}: supported values: ${EFFECTS.map((e) => JSON.stringify(e)).join(", ")}` });
    }
  });
  return causes;
}

/** A toleration without its seconds, as `validateOnlyAddedTolerations` compares them (absent and empty fields alike, as Go's zero values). */
function withoutSeconds(t: Obj): string {
  return JSON.stringify([str(t.key), str(t.operator), str(t.value), str(t.effect)]);
}

/**
 * `validateOnlyAddedTolerations`, on a pod update: every existing toleration must still be
 * there, but for its `tolerationSeconds` (which may change, or go: tolerate forever);
 * new ones may be added. One Forbidden at most. (Upstream then validates the new
 * tolerations again; the sim validates them once, with the pod's spec.)
 */
export function validateOnlyAddedTolerations(next: unknown, previous: unknown, path: string): Cause[] {
  const kept = new Set(list(next).map(withoutSeconds));
  if (list(previous).every((t) => kept.has(withoutSeconds(t)))) return [];
  return [{ field: path, reason: "FieldValueForbidden", message: "Forbidden: existing toleration can not be modified except its tolerationSeconds" }];
}
