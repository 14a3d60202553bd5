/** Label and field selectors, parsed once per request into predicates. */

export type LabelRequirement =
  | { readonly key: string; readonly op: "=" | "!="; readonly value: string }
  | { readonly key: string; readonly op: "in" | "notin"; readonly values: readonly string[] }
  | { readonly key: string; readonly op: "exists" | "!exists" };

export type FieldRequirement = { readonly field: string; readonly op: "=" | "!="; readonly value: string };

/** Thrown for a selector that does not parse; the HTTP layer answers 400. */
export class SelectorError extends Error {}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth += 1;
    if (ch === ")") depth -= 1;
    if (ch === "," && depth === 0) {
      terms.push(current);
      current = "";
    } else current += ch;
  }
  terms.push(current);
  return terms.map((t) => t.trim()).filter((t) => t !== "");
}

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new SelectorError(`unable to parse requirement: invalid label value: "${value}"`);
  return value;
}

function parseLabelTerm(term: string): LabelRequirement {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (set) {
    const values = (set[3] ?? "")
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "")
      .map(checkValue);
    return { key: checkKey(set[1] ?? ""), op: set[2] === "in" ? "in" : "notin", values };
  }
  const eq = /^([^!=\s]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
  if (eq) return { key: checkKey(eq[1] ?? ""), op: eq[2] === "!=" ? "!=" : "=", value: checkValue((eq[3] ?? "").trim()) };
  if (term.startsWith("!")) return { key: checkKey(term.slice(1).trim()), op: "!exists" };
  return { key: checkKey(term), op: "exists" };
}

/** Parses a label selector (equality- and set-based). */
export function parseLabelSelector(selector: string | undefined): LabelRequirement[] {
  if (!selector) return [];
  return splitTerms(selector).map(parseLabelTerm);
}

/** Whether labels satisfy every requirement. */
export function matchLabels(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const r of requirements) {
    const value = labels?.[r.key];
    switch (r.op) {
      case "=":
        if (value !== r.value) return false;
        break;
      case "!=":
        if (value === r.value) return false;
        break;
      case "in":
        if (value === undefined || !r.values.includes(value)) return false;
        break;
      case "notin":
        if (value !== undefined && r.values.includes(value)) return false;
        break;
      case "exists":
        if (value === undefined) return false;
        break;
      case "!exists":
        if (value !== undefined) return false;
        break;
    }
  }
  return true;
}

/** A metav1.LabelSelector (matchLabels + matchExpressions), as webhooks and workloads carry. */
export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** Converts a LabelSelector object to requirements; an empty selector matches everything. */
export function requirementsOf(selector: LabelSelectorObject | undefined): LabelRequirement[] {
  if (!selector) return [];
  const out: LabelRequirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, op: "=", value }));
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === "In") out.push({ key: e.key, op: "in", values: e.values ?? [] });
    else if (e.operator === "NotIn") out.push({ key: e.key, op: "notin", values: e.values ?? [] });
    else if (e.operator === "Exists") out.push({ key: e.key, op: "exists" });
    else if (e.operator === "DoesNotExist") out.push({ key: e.key, op: "!exists" });
    else throw new SelectorError(`"${e.operator}" is not a valid label selector operator`);
  }
  return out;
}

/** Parses a field selector; only `allowed` fields (plus metadata.name/namespace) may be named. */
export function parseFieldSelector(selector: string | undefined, allowed: readonly string[]): FieldRequirement[] {
  if (!selector) return [];
  return splitTerms(selector).map((term) => {
    const m = /^([^!=\s]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    const field = m[1] ?? "";
    if (field !== "metadata.name" && field !== "metadata.namespace" && !allowed.includes(field)) {
      // Worded as kube-apiserver v1.36 words it (fields.Selector conversion).
      const known = ["metadata.name", "metadata.namespace", ...[...allowed].sort()].map((f) => JSON.stringify(f)).join(", ");
      throw new SelectorError(`${JSON.stringify(field)} is not a known field selector: only ${known}`);
    }
    return { field, op: m[2] === "!=" ? "!=" : "=", value: (m[3] ?? "").trim() };
  });
}

/** The value of a dotted field of an object as a field selector sees it ("" when absent). */
export function fieldValue(object: unknown, field: string): string {
  let current: unknown = object;
  for (const part of field.split(".")) {
    if (current === null || typeof current !== "object") return "";
    current = (current as Record<string, unknown>)[part];
  }
  if (current === undefined || current === null) return field === "spec.hostNetwork" || field === "spec.unschedulable" ? "false" : "";
  return typeof current === "object" ? JSON.stringify(current) : String(current);
}

/** Whether an object satisfies every field requirement. */
export function matchFields(requirements: readonly FieldRequirement[], object: unknown): boolean {
  for (const r of requirements) {
    const value = fieldValue(object, r.field);
    if (r.op === "=" ? value !== r.value : value === r.value) return false;
  }
  return true;
}
