/**
 * Field paths: how the manifest names a place in an object. Dot-separated field names;
 * `[]` after a field walks every element of its array (`spec.trainingWorkers[].dataset.name`,
 * `endpoints[].nodeName`). The relay and the Worker read them with the same function.
 */
import { z } from "zod";

const SEGMENT = "[A-Za-z_$][A-Za-z0-9_$-]*(?:\\[\\])?";

/** A dot path such as `spec.nodeName` or `endpoints[].nodeName`. */
export const FieldPath = z
  .string()
  .max(256)
  .regex(new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})*$`), "expected a dot path such as spec.nodeName or endpoints[].nodeName");
export type FieldPath = z.infer<typeof FieldPath>;

/** The non-empty strings a field path names in a value (none when a step is missing). */
export function valuesAt(value: unknown, path: string): string[] {
  let current: unknown[] = [value];
  for (const part of path.split(".")) {
    const many = part.endsWith("[]");
    const field = many ? part.slice(0, -2) : part;
    current = current.flatMap((item) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) return [];
      const next = (item as Record<string, unknown>)[field];
      if (next === undefined || next === null) return [];
      return many ? (Array.isArray(next) ? next : []) : [next];
    });
  }
  return current.filter((v): v is string => typeof v === "string" && v !== "");
}

/** Whether `path` (dot segments, `[]` for every element) holds anything but absence, null, "", 0 or false. */
export function holdsValue(root: unknown, path: string): boolean {
  return reached(root, path).some((value) => value !== undefined && value !== null && value !== "" && value !== 0 && value !== false);
}

/** Whether an object at `path` (a map such as `object.metadata.annotations`) has one of `keys`, whatever its value. */
export function hasKeyAt(root: unknown, path: string, keys: readonly string[]): boolean {
  return reached(root, path).some((value) => typeof value === "object" && value !== null && !Array.isArray(value) && keys.some((key) => Object.hasOwn(value, key)));
}

/** Every value `path` reaches in `root` (`undefined` where a last step is missing). */
function reached(root: unknown, path: string): unknown[] {
  let values: unknown[] = [root];
  for (const segment of path.split(".")) {
    const many = segment.endsWith("[]");
    const key = many ? segment.slice(0, -2) : segment;
    values = values.flatMap((value) => {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
      const next = (value as Record<string, unknown>)[key];
      return many ? (Array.isArray(next) ? (next as unknown[]) : []) : [next];
    });
  }
  return values;
}
