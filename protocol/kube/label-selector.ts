/**
 * A label selector string as a watch declares it (`app=web,tier in (a,b),!legacy`), read
 * as the API server reads it, so the relay (and the kit's fake cluster) can tell which
 * objects of a shared cache a label-selected watch sees. Equality (`=`, `==`, `!=`), set (`in`, `notin`) and
 * existence (`key`, `!key`) terms, joined by commas.
 */
import { requirementHolds } from "./selectors.ts";

/** One term, in the operators of a LabelSelectorRequirement. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  readonly values: readonly string[];
}

/** Splits on the commas outside parentheses. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      out.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  out.push(selector.slice(start));
  return out.map((term) => term.trim()).filter((term) => term !== "");
}

function term(text: string): LabelRequirement {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set) {
    const values = (set[3] ?? "")
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "");
    return { key: set[1] ?? "", operator: set[2] === "in" ? "In" : "NotIn", values };
  }
  const eq = /^([^!=\s]+)\s*(==|!=|=)\s*(.*)$/.exec(text);
  if (eq) return { key: eq[1] ?? "", operator: eq[2] === "!=" ? "NotIn" : "In", values: [(eq[3] ?? "").trim()] };
  if (text.startsWith("!")) return { key: text.slice(1).trim(), operator: "DoesNotExist", values: [] };
  return { key: text, operator: "Exists", values: [] };
}

/** The requirements of a label selector string (none: everything matches). */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  return terms(selector).map(term);
}

/** Whether `labels` meet every requirement. */
export function matchesSelector(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  return requirements.every((r) => requirementHolds(r.operator, r.values, labels?.[r.key]));
}
