/**
 * An object cut to a set of field paths (pure): what a cache keeps of an object
 * (`relay/store/projection.ts`) and what a delivery gives of it (`./fields.ts`). Paths are
 * dotted, `[]` marking an array whose every element is cut alike (`spec.containers[].image`).
 */

/** Kept whatever the watches declare: what keys, maps, versions and deletes an object. */
export const ALWAYS_KEPT: readonly string[] = [
  "apiVersion",
  "kind",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "metadata.resourceVersion",
  "metadata.generation",
  "metadata.creationTimestamp",
  "metadata.ownerReferences",
  "metadata.deletionTimestamp",
];

/** Paths as a tree: a `true` leaf keeps the whole value there. */
export type PathTree = Map<string, PathTree | true>;

/** The tree of `paths` (`[]` marks an array; every element is projected alike). */
export function pathTree(paths: Iterable<string>): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    const parts = path.split(".").map((part) => (part.endsWith("[]") ? part.slice(0, -2) : part));
    let node = root;
    for (const [i, part] of parts.entries()) {
      const next = node.get(part);
      if (next === true) break;
      if (i === parts.length - 1) {
        node.set(part, true);
        break;
      }
      const child: PathTree = next ?? new Map<string, PathTree | true>();
      node.set(part, child);
      node = child;
    }
  }
  return root;
}

/** Kept values below the top level that are the same in many objects are shared through this (the relay's caches intern them). */
type Intern = (value: unknown) => unknown;

/** `value` cut to `tree`: objects keep the keys named, arrays project every element, anything else is kept as it is. */
export function projectValue(value: unknown, tree: PathTree, intern?: Intern, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item) => projectValue(item, tree, intern, depth));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined) continue;
    // Never a top-level value (`metadata`, `spec`): the relay writes there (apiVersion, kind, managedFields).
    out[key] = sub !== true ? projectValue(field, sub, intern, depth + 1) : intern && depth > 0 && !UNIQUE.has(key) ? intern(field) : field;
  }
  return out;
}

/** Leaves unique to each object: interning them would only fill the table. */
const UNIQUE = new Set(["name", "uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "generation"]);
