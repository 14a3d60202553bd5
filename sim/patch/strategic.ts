import { isObject, type Json } from "./merge.ts";

/**
 * Strategic merge patch for the built-in kinds. The patch strategy of a list is looked up
 * by field name (with the parent field for `ports`), mirroring the `patchStrategy` /
 * `patchMergeKey` tags of the upstream Go types; lists without one are replaced.
 */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: "name",
  initContainers: "name",
  ephemeralContainers: "name",
  env: "name",
  volumes: "name",
  volumeMounts: "mountPath",
  volumeDevices: "devicePath",
  imagePullSecrets: "name",
  hostAliases: "ip",
  conditions: "type",
  addresses: "type",
  ownerReferences: "uid",
  readinessGates: "conditionType",
  topologySpreadConstraints: "topologyKey",
  schedulingGates: "name",
  resourceClaims: "name",
};

/** Primitive lists merged as sets. */
const SET_LISTS = new Set(["finalizers"]);

function mergeKeyOf(field: string, parent: string | undefined): string | undefined {
  if (field === "ports") return parent === "containers" || parent === "initContainers" || parent === "ephemeralContainers" ? "containerPort" : "port";
  return MERGE_KEYS[field];
}

/** Applies a strategic merge patch to `target` (not modified). */
export function strategicMergePatch(target: unknown, patch: unknown): Json {
  return mergeValue(target as Json | undefined, patch as Json, undefined, undefined);
}

function mergeValue(target: Json | undefined, patch: Json, field: string | undefined, parent: string | undefined): Json {
  if (isObject(patch)) {
    if (patch.$patch === "replace") return stripDirectives(patch);
    return mergeObject(isObject(target) ? target : {}, patch, field);
  }
  if (Array.isArray(patch) && field !== undefined && Array.isArray(target)) return mergeList(target, patch, field, parent);
  return stripDirectives(patch);
}

function mergeObject(target: Record<string, Json>, patch: Record<string, Json>, field: string | undefined): Json {
  const result: Record<string, Json> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key === "$retainKeys" || key.startsWith("$setElementOrder/")) continue;
    if (key.startsWith("$deleteFromPrimitiveList/")) {
      const list = key.slice("$deleteFromPrimitiveList/".length);
      const current = result[list];
      if (Array.isArray(current) && Array.isArray(value)) result[list] = current.filter((v) => !value.includes(v));
      // An emptied list goes, as an omitempty field does when the server decodes it.
      if (Array.isArray(result[list]) && (result[list] as Json[]).length === 0) delete result[list];
      continue;
    }
    if (value === null) delete result[key];
    else result[key] = mergeValue(result[key], value, key, field);
  }
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}

function mergeList(target: Json[], patch: Json[], field: string, parent: string | undefined): Json {
  if (SET_LISTS.has(field)) {
    const out = [...target];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  const key = mergeKeyOf(field, parent);
  if (key === undefined) return stripDirectives(patch);
  if (patch.some((item) => isObject(item) && item.$patch === "replace")) return stripDirectives(patch.filter((item) => !(isObject(item) && item.$patch === "replace")));
  const out: Json[] = [...target];
  for (const item of patch) {
    if (!isObject(item)) continue;
    const index = out.findIndex((existing) => isObject(existing) && existing[key] === item[key]);
    if (item.$patch === "delete") {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0) out[index] = mergeObject(out[index] as Record<string, Json>, item, field);
    else out.push(stripDirectives(item));
  }
  return out;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith("$")) continue;
    out[k] = stripDirectives(v);
  }
  return out;
}
