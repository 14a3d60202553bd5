/** Small helpers over plain Kubernetes objects, shared by the API pipeline. */
import type { KubeObject } from "../../protocol/index.ts";

export type Obj = Record<string, unknown>;

/** The object as a plain record. */
export function asObj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

/**
 * Why `value` cannot be decoded as a Kubernetes object, if it cannot: not a JSON object,
 * `apiVersion` or `kind` not a string, `metadata` not an object. Upstream's decoder
 * refuses these with a 400; reading on would fail deeper (a 500).
 */
export function objectShapeProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `the object is not a JSON object: ${JSON.stringify(value)?.slice(0, 80) ?? String(value)}`;
  const { apiVersion, kind, metadata } = value as Obj;
  if (typeof apiVersion !== "string" || apiVersion === "") return "Object 'apiVersion' is missing or not a string";
  if (typeof kind !== "string" || kind === "") return "Object 'Kind' is missing or not a string";
  if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))) return "metadata must be an object";
  return undefined;
}

/** Everything but metadata and status: what a spec change means for `generation`. */
export function specOf(object: KubeObject): string {
  const { metadata: _m, status: _s, ...rest } = object as Obj;
  return JSON.stringify(rest);
}

/** Deep equality of JSON values, ignoring metadata.resourceVersion and managedFields. */
export function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): Obj => {
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = o.metadata as Obj;
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(a), strip(b));
}

function definedKeys(value: Obj): string[] {
  return Object.keys(value).filter((k) => value[k] !== undefined);
}

/**
 * Deep equality of JSON values, key order and `undefined` members ignored (as
 * serialisation would). It replaced comparing {@link stableJson} strings on every update.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object" || Array.isArray(b)) return false;
  const left = a as Obj;
  const right = b as Obj;
  const keys = definedKeys(left);
  return keys.length === definedKeys(right).length && keys.every((k) => jsonEqual(left[k], right[k]));
}

/** JSON with object keys sorted, for order-insensitive comparison. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Obj)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** RFC 3339 without fractional seconds, as Kubernetes prints timestamps. */
export function timestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
