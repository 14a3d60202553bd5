/** Discovery documents (legacy, non-aggregated): what kubectl and client-node look up first. */
import type { Registry } from "../registry/registry.ts";
import { VERBS, type ResourceType } from "../registry/resource.ts";

type Doc = Record<string, unknown>;

/** `GET /version`. */
export function versionDoc(): Doc {
  return { major: "1", minor: "32", gitVersion: "v1.32.0-edgeloop-sim", gitCommit: "sim", gitTreeState: "clean", buildDate: "2026-11-01T00:00:00Z", goVersion: "go1.23", compiler: "gc", platform: "linux/amd64" };
}

/** `GET /api`. */
export function coreVersions(serverAddress: string): Doc {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

/** `GET /apis`. */
export function groupList(registry: Registry): Doc {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: registry.groups().map((g) => groupDoc(registry, g.name, g.versions)),
  };
}

function groupDoc(registry: Registry, name: string, versions: readonly string[]): Doc {
  const preferred = registry.preferredVersion(name) ?? versions[0] ?? "v1";
  return {
    name,
    versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${preferred}`, version: preferred },
  };
}

/** `GET /apis/{group}`, or undefined when the group is not served. */
export function groupOf(registry: Registry, name: string): Doc | undefined {
  const group = registry.groups().find((g) => g.name === name);
  return group ? { kind: "APIGroup", apiVersion: "v1", ...groupDoc(registry, name, group.versions) } : undefined;
}

function entries(resource: ResourceType): Doc[] {
  const main: Doc = {
    name: resource.plural,
    singularName: resource.singular,
    namespaced: resource.namespaced,
    kind: resource.kind,
    verbs: [...VERBS],
    ...(resource.shortNames.length ? { shortNames: resource.shortNames } : {}),
    ...(resource.categories.length ? { categories: resource.categories } : {}),
  };
  const subresources: Doc[] = [];
  if (resource.statusSubresource) subresources.push({ name: `${resource.plural}/status`, singularName: "", namespaced: resource.namespaced, kind: resource.kind, verbs: ["get", "patch", "update"] });
  for (const extra of resource.extraSubresources) {
    subresources.push({ name: `${resource.plural}/${extra}`, singularName: "", namespaced: resource.namespaced, ...SUBRESOURCE_DOCS[extra] });
  }
  return [main, ...subresources];
}

const SUBRESOURCE_DOCS: Record<string, Doc> = {
  binding: { kind: "Binding", verbs: ["create"] },
  scale: { group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] },
};

/** `GET /api/v1` or `/apis/{group}/{version}`, or undefined when nothing is served there. */
export function resourceList(registry: Registry, group: string, version: string): Doc | undefined {
  const resources = registry.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: group === "" ? version : `${group}/${version}`, resources: resources.flatMap(entries) };
}
