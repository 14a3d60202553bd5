/**
 * OpenAPI v3 as kubectl reads it: the index of group-versions (each URL carrying the hash
 * of its document, so clients never keep a stale one), and per group-version the PATCH
 * operations tagged with their kind and the `fieldValidation` parameter (kubectl then
 * validates server-side) and the schemas of the kinds served there, tagged with
 * `x-kubernetes-group-version-kind` (what `kubectl explain` looks for): built-in kinds
 * from `sim/schema`, custom resources from their CRD's schema for that version.
 */
import { createHash } from "node:crypto";
import type { Registry } from "../registry/registry.ts";
import type { ResourceType } from "../registry/resource.ts";
import { builtinSchema, builtinSchemaName, OBJECT_META, reachableSchemas, type OpenApiSchema } from "../schema/builtin.ts";

type Doc = Record<string, unknown>;

const REF_PREFIX = "#/components/schemas/";
/** What upstream says of the fields every custom resource has. */
const COMMON_FIELDS: Readonly<Record<"apiVersion" | "kind" | "metadata", string>> = {
  apiVersion: "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
  kind: "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
  metadata: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
};

function gvPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** A group-version's document and its hash, valid while the same resources are served there. */
interface Built {
  readonly resources: readonly ResourceType[];
  readonly doc: Doc;
  readonly hash: string;
}

// Served resources are immutable (a CRD update serves a new one), so a document is rebuilt only when they change.
const built = new WeakMap<Registry, Map<string, Built>>();

function build(registry: Registry, group: string, version: string): Built | undefined {
  const resources = registry.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  let cache = built.get(registry);
  if (!cache) built.set(registry, (cache = new Map()));
  const key = gvPath(group, version);
  const known = cache.get(key);
  if (known && known.resources.length === resources.length && known.resources.every((r, i) => r === resources[i])) return known;
  const doc = document(resources, group, version);
  const fresh = { resources, doc, hash: createHash("sha256").update(JSON.stringify(doc)).digest("hex").toUpperCase() };
  cache.set(key, fresh);
  return fresh;
}

/** `GET /openapi/v3`: one entry per served group-version. */
export function openApiIndex(registry: Registry): Doc {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const add = (group: string, version: string): void => {
    const found = build(registry, group, version);
    if (!found) return;
    const path = gvPath(group, version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${found.hash}` };
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

/** The schema with every `$ref` (a bare schema name in `sim/schema`) made a JSON pointer into the document. */
function withPointers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withPointers);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === "$ref" && typeof value === "string" ? `${REF_PREFIX}${value}` : withPointers(value)]));
}

/** `sedna.io` → `io.sedna`: how upstream names a custom resource's schema. */
function reversedGroup(group: string): string {
  return group.split(".").reverse().join(".");
}

/** A custom resource's schema as served: the CRD's, with apiVersion, kind and metadata filled in, and its GVK. */
function customSchema(resource: ResourceType, group: string, version: string): OpenApiSchema {
  const own = (resource.crd?.schemas.get(version) as OpenApiSchema | undefined) ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return {
    ...own,
    type: "object",
    properties: {
      ...own.properties,
      apiVersion: { description: COMMON_FIELDS.apiVersion, type: "string" },
      kind: { description: COMMON_FIELDS.kind, type: "string" },
      // kubectl explain shows the type of a `$ref` wrapped in a one-element allOf, as upstream serves it.
      metadata: { description: COMMON_FIELDS.metadata, allOf: [{ $ref: OBJECT_META }] },
    },
    "x-kubernetes-group-version-kind": [{ group, kind: resource.kind, version }],
  };
}

/** The schemas of the kinds served at group/version, and every schema they reach. */
function schemasOf(resources: readonly ResourceType[], group: string, version: string): Record<string, unknown> {
  const schemas: Record<string, OpenApiSchema> = {};
  const builtins: string[] = [];
  for (const resource of resources) {
    if (resource.crd) {
      schemas[`${reversedGroup(group)}.${version}.${resource.kind}`] = customSchema(resource, group, version);
      builtins.push(OBJECT_META);
    } else {
      const name = builtinSchemaName(group, version, resource.kind);
      if (name) builtins.push(name);
    }
  }
  for (const name of reachableSchemas(builtins)) {
    const schema = builtinSchema(name);
    if (schema) schemas[name] = schema;
  }
  return withPointers(schemas) as Record<string, unknown>;
}

/** `GET /openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`, or undefined. */
export function openApiGroupVersion(registry: Registry, group: string, version: string): Doc | undefined {
  return build(registry, group, version)?.doc;
}

function document(resources: readonly ResourceType[], group: string, version: string): Doc {
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes (edgeloop sim)", version: "v1.32.0" },
    paths: Object.fromEntries(resources.map((r) => patchPath(r, group, version))),
    components: { schemas: schemasOf(resources, group, version) },
  };
}
