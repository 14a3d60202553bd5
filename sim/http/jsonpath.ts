/**
 * The JSONPath subset CRD printer columns use (kubectl's dialect): `.a.b`, `['a.b']`,
 * `[n]`, `[-n]`, `[*]`, and filters `[?(@.x=="v")]` / `[?(@.x!="v")]` / `[?(@.x)]`.
 */

type Step =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "index"; readonly index: number }
  | { readonly kind: "all" }
  | { readonly kind: "filter"; readonly path: readonly string[]; readonly op?: "==" | "!="; readonly value?: unknown };

const TOKEN = /^(?:\.([A-Za-z0-9_$-]+)|\['([^']*)'\]|\["([^"]*)"\]|\[(-?\d+)\]|\[\*\]|\.\*|\[\?\(@((?:\.[A-Za-z0-9_$-]+)+)\s*(?:(==|!=)\s*(.+?))?\)\])/;

/** Parses a path; throws on syntax it does not support. */
export function parseJsonPath(path: string): Step[] {
  let rest = path.trim().replace(/^\{(.*)\}$/, "$1").replace(/^\$/, "");
  const steps: Step[] = [];
  while (rest.length > 0) {
    const m = TOKEN.exec(rest);
    if (!m) throw new Error(`unsupported JSONPath at "${rest}"`);
    rest = rest.slice(m[0].length);
    const field = m[1] ?? m[2] ?? m[3];
    if (field !== undefined) steps.push({ kind: "field", name: field });
    else if (m[4] !== undefined) steps.push({ kind: "index", index: Number(m[4]) });
    else if (m[5] !== undefined) steps.push(filterStep(m[5], m[6], m[7]));
    else steps.push({ kind: "all" });
  }
  return steps;
}

function filterStep(path: string, op: string | undefined, literal: string | undefined): Step {
  const names = path.slice(1).split(".");
  if (op === undefined || literal === undefined) return { kind: "filter", path: names };
  const text = literal.trim();
  const value = /^(["']).*\1$/.test(text) ? text.slice(1, -1) : JSON.parse(text);
  return { kind: "filter", path: names, op: op as "==" | "!=", value };
}

function at(value: unknown, names: readonly string[]): unknown {
  let current = value;
  for (const name of names) current = current !== null && typeof current === "object" ? (current as Record<string, unknown>)[name] : undefined;
  return current;
}

function apply(values: unknown[], step: Step): unknown[] {
  const out: unknown[] = [];
  for (const value of values) {
    if (step.kind === "field") {
      const next = at(value, [step.name]);
      if (next !== undefined) out.push(next);
    } else if (Array.isArray(value)) {
      if (step.kind === "index") {
        const item: unknown = value[step.index < 0 ? value.length + step.index : step.index];
        if (item !== undefined) out.push(item);
      } else if (step.kind === "all") append(out, value as unknown[]);
      else append(out, (value as unknown[]).filter((item) => matches(item, step)));
    } else if (step.kind === "all" && value !== null && typeof value === "object") append(out, Object.values(value));
  }
  return out;
}

/** Appends one by one: `push(...items)` passes each as an argument, and `{.items[*]}` of 150,000 pods overflowed the stack. */
function append(out: unknown[], items: readonly unknown[]): void {
  for (const item of items) out.push(item);
}

function matches(item: unknown, step: Extract<Step, { kind: "filter" }>): boolean {
  const found = at(item, step.path);
  if (step.op === undefined) return found !== undefined && found !== null && found !== false;
  const equal = found === step.value || (found !== undefined && String(found) === String(step.value));
  return step.op === "==" ? equal : !equal;
}

/** Every value `path` selects in `object` (empty when none, or when the path is unsupported). */
export function evaluateJsonPath(object: unknown, path: string): unknown[] {
  let steps: Step[];
  try {
    steps = parseJsonPath(path);
  } catch {
    return [];
  }
  return steps.reduce<unknown[]>((values, step) => apply(values, step), [object]);
}

/** A printer-column cell: one value as is, several joined by commas (as kubectl does). */
export function printerCell(object: unknown, path: string): unknown {
  const values = evaluateJsonPath(object, path);
  if (values.length === 0) return undefined;
  if (values.length === 1) return values[0];
  return values.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(",");
}
