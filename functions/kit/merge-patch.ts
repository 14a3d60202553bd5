/** JSON merge patches (RFC 7386), both ways: the patch between two values, and a patch applied. */

/** A member as JSON has it: `undefined` is no member (in an array, null). */
function member(value: unknown): unknown {
  return value === undefined ? null : value;
}

/**
 * True when two JSON values are equal (object key order ignored; an `undefined` member is
 * absent, as JSON has it). Compared in place with an explicit stack (no nesting depth can
 * overflow the call stack), not by serialising both: that was a tenth of a reconcile.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  const pairs: [unknown, unknown][] = [[member(a), member(b)]];
  for (let pair = pairs.pop(); pair; pair = pairs.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      x.forEach((value, index) => pairs.push([member(value), member(y[index])]));
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const keys = Object.keys(xo).filter((key) => xo[key] !== undefined);
    if (keys.length !== Object.keys(yo).filter((key) => yo[key] !== undefined).length) return false;
    for (const key of keys) {
      if (yo[key] === undefined) return false;
      pairs.push([xo[key], yo[key]]);
    }
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The RFC 7386 JSON merge patch that turns `from` into `to`: changed keys recurse,
 * keys gone from `to` become null, arrays and scalars are replaced whole.
 */
export function createMergePatch(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return to;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    if (!(key in from) || !deepEqual(from[key], value)) out[key] = isObject(from[key]) && isObject(value) ? createMergePatch(from[key], value) : value;
  }
  for (const key of Object.keys(from)) {
    if (!(key in to) || to[key] === undefined) out[key] = null;
  }
  return out;
}

/** Applies an RFC 7386 merge patch: objects merge recursively, null deletes, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}
