/** Differences between two normalised answers, as dotted paths with each side's value. */

/** One difference: `sim` or `real` is undefined where that side has no such field. */
export interface Difference {
  readonly path: string;
  readonly sim: unknown;
  readonly real: unknown;
}

/** Every leaf-level difference between `sim` and `real` (objects by key, arrays by index). */
export function diff(sim: unknown, real: unknown, path = ""): Difference[] {
  if (Object.is(sim, real)) return [];
  if (Array.isArray(sim) && Array.isArray(real)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(sim.length, real.length); i++) out.push(...diff(sim[i], real[i], join(path, String(i))));
    return out;
  }
  if (isObject(sim) && isObject(real)) {
    const out: Difference[] = [];
    const keys = [...new Set([...Object.keys(sim), ...Object.keys(real)])].sort();
    for (const key of keys) out.push(...diff(sim[key], real[key], join(path, key)));
    return out;
  }
  return [{ path: path || "(root)", sim, real }];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** Drops the fields at `patterns` (dotted, `*` matching any one key or index) from a copy of `value`. */
export function without(value: unknown, patterns: readonly string[]): unknown {
  let out = value;
  for (const pattern of patterns) out = drop(out, pattern.split("."));
  return out;
}

function drop(value: unknown, parts: readonly string[]): unknown {
  const [head, ...rest] = parts;
  if (head === undefined) return value;
  if (Array.isArray(value)) {
    if (head === "*") return rest.length === 0 ? [] : value.map((item) => drop(item, rest));
    const index = Number(head);
    if (!Number.isInteger(index) || index >= value.length) return value;
    if (rest.length === 0) return value.filter((_, i) => i !== index);
    return value.map((item, i) => (i === index ? drop(item, rest) : item));
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (head !== "*" && key !== head) out[key] = child;
    else if (rest.length > 0) out[key] = drop(child, rest);
  }
  return out;
}

/** A short, one-line account of the differences: the first few paths and values. */
export function summarise(differences: readonly Difference[], max = 2): string {
  const shown = differences.slice(0, max).map((d) => `${d.path}: sim ${brief(d.sim)}, real ${brief(d.real)}`);
  const more = differences.length > max ? ` (+${differences.length - max} more)` : "";
  return `${shown.join("; ")}${more}`;
}

function brief(value: unknown): string {
  if (value === undefined) return "absent";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
