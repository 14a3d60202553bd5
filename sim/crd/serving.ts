import { z } from "zod";
import type { KubeObject } from "../../protocol/index.ts";
import { isDns1035Label } from "../../protocol/kube/names.ts";
import type { Cause } from "../pipeline/errors.ts";
import type { PrinterColumn, ResourceType } from "../registry/resource.ts";

const PrinterColumnSchema = z.object({
  name: z.string(),
  type: z.string(),
  jsonPath: z.string(),
  description: z.string().optional(),
  format: z.string().optional(),
  priority: z.number().int().optional(),
});

const VersionSchema = z.object({
  name: z.string().min(1),
  served: z.boolean(),
  storage: z.boolean(),
  schema: z.object({ openAPIV3Schema: z.record(z.string(), z.unknown()).optional() }).optional(),
  subresources: z.object({ status: z.record(z.string(), z.unknown()).optional(), scale: z.record(z.string(), z.unknown()).optional() }).optional(),
  additionalPrinterColumns: z.array(PrinterColumnSchema).optional(),
  selectableFields: z.array(z.object({ jsonPath: z.string() })).optional(),
});

/** The part of a CustomResourceDefinition (apiextensions.k8s.io/v1) the sim serves from. */
export const CrdSpec = z.object({
  group: z.string().min(1),
  names: z.object({
    kind: z.string().min(1),
    plural: z.string().min(1),
    singular: z.string().optional(),
    listKind: z.string().optional(),
    shortNames: z.array(z.string()).optional(),
    categories: z.array(z.string()).optional(),
  }),
  scope: z.enum(["Namespaced", "Cluster"]),
  versions: z.array(VersionSchema).min(1),
});
export type CrdSpec = z.infer<typeof CrdSpec>;

/** Parses and checks a CRD as the apiextensions validation does; returns the field errors or the spec. */
export function checkCrd(crd: KubeObject): { spec: CrdSpec } | { causes: Cause[] } {
  const parsed = CrdSpec.safeParse((crd as Record<string, unknown>).spec);
  if (!parsed.success) {
    return {
      causes: parsed.error.issues.map((issue) => {
        const field = ["spec", ...issue.path.map(String)].join(".");
        return issue.code === "invalid_type" && issue.input === undefined
          ? { field, reason: "FieldValueRequired", message: "Required value" }
          : { field, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(issue.input) ?? "null"}: ${issue.message}` };
      }),
    };
  }
  const spec = parsed.data;
  const causes: Cause[] = [];
  const expected = `${spec.names.plural}.${spec.group}`;
  if (crd.metadata.name !== expected) {
    causes.push({ field: "metadata.name", reason: "FieldValueInvalid", message: `Invalid value: "${crd.metadata.name ?? ""}": must be spec.names.plural+"."+spec.group` });
  }
  if (spec.versions.filter((v) => v.storage).length !== 1) {
    causes.push({ field: "spec.versions", reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(spec.versions.map((v) => v.name))}: must have exactly one version marked as storage version` });
  }
  if (!spec.versions.some((v) => v.served)) {
    causes.push({ field: "spec.versions", reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(spec.versions.map((v) => v.name))}: must have at least one version marked as served` });
  }
  // ValidateCustomResourceDefinitionNames: the plural is a DNS-1035 label, its failures joined by ",".
  const pluralErrors = isDns1035Label(spec.names.plural);
  if (pluralErrors.length > 0) {
    causes.push({ field: "spec.names.plural", reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(spec.names.plural)}: ${pluralErrors.join(",")}` });
  }
  return causes.length > 0 ? { causes } : { spec };
}

/** The resource a valid CRD serves. */
export function resourceOfCrd(crdName: string, spec: CrdSpec): ResourceType {
  const served = spec.versions.filter((v) => v.served);
  const storage = spec.versions.find((v) => v.storage);
  const preferred = storage?.served ? storage.name : (served[0]?.name ?? spec.versions[0]?.name ?? "v1");
  const schemas = new Map<string, unknown>();
  const printerColumns = new Map<string, readonly PrinterColumn[]>();
  for (const v of spec.versions) {
    if (v.schema?.openAPIV3Schema) schemas.set(v.name, v.schema.openAPIV3Schema);
    if (v.additionalPrinterColumns) printerColumns.set(v.name, v.additionalPrinterColumns);
  }
  return {
    group: spec.group,
    version: preferred,
    versions: served.map((v) => v.name),
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    plural: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    namespaced: spec.scope === "Namespaced",
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    statusSubresource: spec.versions.some((v) => v.subresources?.status !== undefined),
    generation: true,
    extraSubresources: [],
    fieldLabels: spec.versions.flatMap((v) => (v.selectableFields ?? []).map((f) => f.jsonPath.replace(/^\./, ""))),
    crd: { crdName, schemas, printerColumns },
  };
}

/** The status the apiextensions controllers give an accepted CRD. */
export function establishedStatus(spec: CrdSpec, now: string, previous: unknown): Record<string, unknown> {
  const conditions = [
    { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found", lastTransitionTime: now },
    { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted", lastTransitionTime: now },
  ];
  const old = (previous as { conditions?: { type: string; status: string; lastTransitionTime?: string }[] } | undefined)?.conditions ?? [];
  const kept = conditions.map((c) => {
    const before = old.find((o) => o.type === c.type && o.status === c.status);
    return before?.lastTransitionTime ? { ...c, lastTransitionTime: before.lastTransitionTime } : c;
  });
  return {
    acceptedNames: {
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      plural: spec.names.plural,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      ...(spec.names.shortNames ? { shortNames: spec.names.shortNames } : {}),
      ...(spec.names.categories ? { categories: spec.names.categories } : {}),
    },
    conditions: kept,
    storedVersions: spec.versions.filter((v) => v.storage).map((v) => v.name),
  };
}
