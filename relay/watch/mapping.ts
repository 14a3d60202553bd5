/**
 * From a watched object to the parent keys it makes dirty, per the manifest's mapping
 * (pure). `reference` mappings need the parents: the caller passes a lookup.
 */
import type { KubeObject, Mapping } from "../../protocol/index.ts";

/** `namespace/name` or `name`. */
export function keyOfObject(object: KubeObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name ?? ""}` : (object.metadata.name ?? "");
}

/** The values a dot path (`spec.workers[].dataset.name`) names in an object. */
export function valuesAt(object: unknown, path: string): string[] {
  let current: unknown[] = [object];
  for (const part of path.split(".")) {
    const many = part.endsWith("[]");
    const field = many ? part.slice(0, -2) : part;
    current = current.flatMap((value) => {
      if (value === null || typeof value !== "object") return [];
      const next = (value as Record<string, unknown>)[field];
      if (next === undefined || next === null) return [];
      return many ? (Array.isArray(next) ? next : []) : [next];
    });
  }
  return current.filter((v): v is string => typeof v === "string" && v !== "");
}

/** The parent keys an object maps to. `parents` lists the controller's parents (for `reference`). */
export function parentKeys(mapping: Mapping, object: KubeObject, parents: () => readonly KubeObject[]): string[] {
  const namespace = object.metadata.namespace;
  const prefix = namespace ? `${namespace}/` : "";
  switch (mapping.by) {
    case "self":
      return [keyOfObject(object)];
    case "owner": {
      const owner = object.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === mapping.owner.kind && r.apiVersion.split("/")[0] === mapping.owner.apiVersion.split("/")[0]);
      return owner ? [`${prefix}${owner.name}`] : [];
    }
    case "label": {
      const value = object.metadata.labels?.[mapping.label];
      return value ? [`${prefix}${value}`] : [];
    }
    case "node": {
      const node = (object as { spec?: { nodeName?: unknown } }).spec?.nodeName;
      return typeof node === "string" && node ? [node] : [];
    }
    case "reference": {
      const name = object.metadata.name ?? "";
      return parents()
        .filter((parent) => parent.metadata.namespace === namespace && mapping.paths.some((path) => valuesAt(parent, path).includes(name)))
        .map(keyOfObject);
    }
  }
}
