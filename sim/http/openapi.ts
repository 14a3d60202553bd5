/**
 * The smallest OpenAPI v3 kubectl needs: the index of group-versions, and per
 * group-version the PATCH operations tagged with their kind and the `fieldValidation`
 * query parameter, so kubectl validates server-side instead of downloading schemas.
 */
import type { Registry } from "../registry/registry.ts";
import type { ResourceType } from "../registry/resource.ts";

type Doc = Record<string, unknown>;

function gvPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** `GET /openapi/v3`. */
export function openApiIndex(registry: Registry, revision: number): Doc {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const add = (group: string, version: string): void => {
    const path = gvPath(group, version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${revision}` };
  };
  add("", "v1");
  for (const group of registry.groups()) for (const version of group.versions) add(group.name, version);
  return { paths };
}

function patchPath(resource: ResourceType, group: string, version: string): [string, Doc] {
  const prefix = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  const path = resource.namespaced ? `${prefix}/namespaces/{namespace}/${resource.plural}/{name}` : `${prefix}/${resource.plural}/{name}`;
  return [
    path,
    {
      patch: {
        operationId: `patch${resource.kind}`,
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": { group, version, kind: resource.kind },
        // kubectl looks for fieldValidation among the PATCH operation's own parameters.
        parameters: [
        { name: "name", in: "path", required: true, schema: { type: "string" } },
        ...(resource.namespaced ? [{ name: "namespace", in: "path", required: true, schema: { type: "string" } }] : []),
        { name: "dryRun", in: "query", schema: { type: "string" } },
        { name: "fieldManager", in: "query", schema: { type: "string" } },
        { name: "fieldValidation", in: "query", schema: { type: "string" } },
        ],
        responses: { "200": { description: "OK" } },
      },
    },
  ];
}

/** `GET /openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`, or undefined. */
export function openApiGroupVersion(registry: Registry, group: string, version: string): Doc | undefined {
  const resources = registry.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes (edgeloop sim)", version: "v1.32.0" },
    paths: Object.fromEntries(resources.map((r) => patchPath(r, group, version))),
    components: { schemas: {} },
  };
}
