/**
 * Reading untyped JSON (a Pod or a Node as the watch delivers it) without trusting its
 * shape: every accessor returns `undefined` (or an empty value) for anything unexpected,
 * so a malformed field never throws inside a scheduling pass.
 */

/** A JSON object, or undefined for anything else (arrays included). */
export function asObject(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A JSON array, or an empty one. */
export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string, or undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A finite number, or undefined. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A string-to-string map (labels, a nodeSelector); non-string values are dropped. */
export function asStringMap(value: unknown): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  const object = asObject(value);
  if (object === undefined) return out;
  for (const key of Object.keys(object).sort()) {
    const item = object[key];
    if (typeof item === "string") out[key] = item;
  }
  return out;
}

/** `value[a][b]...`, each step an object key. */
export function dig(value: unknown, ...path: readonly string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    const object = asObject(current);
    if (object === undefined) return undefined;
    current = object[key];
  }
  return current;
}
