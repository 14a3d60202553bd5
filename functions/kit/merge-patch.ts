/** JSON merge patches (RFC 7386), both ways: the patch between two values, and a patch applied. */
import { stableStringify } from "./hash.ts";

/** True when two JSON values are equal (object key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
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
