import { z } from "zod";
import { stringify } from "yaml";
import type { CustomResource } from "./resource.ts";
import { toStructural, type SchemaNode } from "./structural.ts";

const API_VERSION_DOC = "APIVersion defines the versioned schema of this representation of an object.";
const KIND_DOC = "Kind is a string value representing the REST resource this object represents.";

/** The structural schema of one zod schema (input side: fields with defaults are optional). */
export function structuralSchemaOf(schema: z.ZodType): SchemaNode {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as SchemaNode;
  const { $schema: _schema, $defs: _defs, ...rest } = toStructural(json);
  return rest;
}

/** The `openAPIV3Schema` of a custom resource: apiVersion, kind, metadata, spec and status. */
export function openApiSchemaOf(resource: CustomResource): SchemaNode {
  const properties: SchemaNode = {
    apiVersion: { type: "string", description: API_VERSION_DOC },
    kind: { type: "string", description: KIND_DOC },
    metadata: { type: "object" },
    spec: structuralSchemaOf(resource.spec),
  };
  if (resource.status) properties["status"] = structuralSchemaOf(resource.status);
  return { type: "object", description: `${resource.kind} (${resource.group}/${resource.version})`, properties, required: ["spec"] };
}

/** The apiextensions.k8s.io/v1 CustomResourceDefinition of a resource. */
export function crdOf(resource: CustomResource): SchemaNode {
  const names: SchemaNode = {
    kind: resource.kind,
    listKind: `${resource.kind}List`,
    plural: resource.plural,
    singular: resource.singular,
  };
  if (resource.shortNames && resource.shortNames.length > 0) names["shortNames"] = [...resource.shortNames];
  const version: SchemaNode = {
    name: resource.version,
    served: true,
    storage: true,
    schema: { openAPIV3Schema: openApiSchemaOf(resource) },
  };
  if (resource.status) version["subresources"] = { status: {} };
  if (resource.printerColumns && resource.printerColumns.length > 0) {
    version["additionalPrinterColumns"] = [
      ...resource.printerColumns.map((c) => ({ ...c })),
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ];
  }
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${resource.plural}.${resource.group}`, labels: { "app.kubernetes.io/managed-by": "edgeloop" } },
    spec: { group: resource.group, names, scope: resource.scope, versions: [version] },
  };
}

/** Resources deduplicated by `plural.group` (two controllers may serve the same Model). */
export function uniqueResources(resources: readonly CustomResource[]): CustomResource[] {
  const byName = new Map<string, CustomResource>();
  for (const resource of resources) byName.set(`${resource.plural}.${resource.group}`, resource);
  return [...byName.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, resource]) => resource);
}

/** The CRD objects of every resource the controllers serve, deduplicated, in a stable order. */
export function crdsOf(controllers: readonly { readonly resources?: readonly CustomResource[] | undefined }[]): SchemaNode[] {
  return uniqueResources(controllers.flatMap((c) => c.resources ?? [])).map(crdOf);
}

/** A multi-document YAML stream of the CRDs of the resources, in a stable order. */
export function crdYaml(resources: readonly CustomResource[]): string {
  return uniqueResources(resources)
    .map((resource) => `---\n${stringify(crdOf(resource), { lineWidth: 0 })}`)
    .join("");
}
