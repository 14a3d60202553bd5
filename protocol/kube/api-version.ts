/**
 * API groups and versions as Kubernetes spells them: an `apiVersion` is `group/version`,
 * or a bare `version` for the core group (`v1`), whose group is "". Pure.
 */

/** A group and version apart ("" is the core group). */
export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/** Splits an apiVersion (`apps/v1` → apps, v1; `v1` → "", v1), as `schema.ParseGroupVersion` reads a valid one. */
export function splitApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → ""). */
export function groupOf(apiVersion: string): string {
  return splitApiVersion(apiVersion).group;
}

/** The version of an apiVersion (`apps/v1` → `v1`, `v1` → `v1`). */
export function versionOf(apiVersion: string): string {
  return splitApiVersion(apiVersion).version;
}

/** `group/version`, or `version` for the core group. */
export function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/**
 * Whether two types are the same kind in the same group, whatever their versions: a
 * reference written at `batch/v1` names the same Job as one at `batch/v2`, as
 * controller-runtime compares owner references (`referSameObject`: group and kind).
 */
export function sameGroupKind(a: { readonly apiVersion: string; readonly kind: string }, b: { readonly apiVersion: string; readonly kind: string }): boolean {
  return a.kind === b.kind && groupOf(a.apiVersion) === groupOf(b.apiVersion);
}

/** A resource and its subresource ("" for none). */
export interface ResourcePath {
  readonly resource: string;
  readonly subresource: string;
}

/** Splits a resource as RBAC rules and webhook rules name it (`pods` → pods, ""; `pods/binding` → pods, binding). */
export function splitResource(name: string): ResourcePath {
  const slash = name.indexOf("/");
  return slash < 0 ? { resource: name, subresource: "" } : { resource: name.slice(0, slash), subresource: name.slice(slash + 1) };
}
