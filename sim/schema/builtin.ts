/**
 * The OpenAPI v3 schemas of the built-in kinds (`builtin.json`, generated from the models
 * of @kubernetes/client-node by `scripts/sim-schemas.ts`). The pipeline prunes unknown
 * fields with them; `/openapi/v3` serves them to `kubectl explain`. A kind the sim starts
 * to serve (batch/v1 Job) only needs its entry in `scripts/sim-schemas.ts` `ROOTS`.
 */
import { readFileSync } from "node:fs";
import type { Schema } from "../crd/schema.ts";

/** A schema as served in OpenAPI v3 (the structural subset plus documentation and GVK tags). */
export interface OpenApiSchema extends Schema {
  readonly description?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly "x-kubernetes-group-version-kind"?: readonly { group: string; version: string; kind: string }[];
}

interface BuiltinDocument {
  /** `group/version/Kind` (group "" for core) → schema name. */
  readonly kinds: Readonly<Record<string, string>>;
  readonly schemas: Readonly<Record<string, OpenApiSchema>>;
}

/** The schema name of every object's metadata. */
export const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

let document: BuiltinDocument | undefined;

function load(): BuiltinDocument {
  // Read on first use: 200 kB of JSON the sim needs only once a request names a kind.
  document ??= JSON.parse(readFileSync(new URL("./builtin.json", import.meta.url), "utf8")) as BuiltinDocument;
  return document;
}

/** The schema name of a built-in kind, if its schema is known. */
export function builtinSchemaName(group: string, version: string, kind: string): string | undefined {
  return load().kinds[`${group}/${version}/${kind}`];
}

/** One schema by name (what a `$ref` names). */
export function builtinSchema(name: string): OpenApiSchema | undefined {
  return load().schemas[name];
}

/** The names of the schemas `name` reaches through `$ref`s, itself included, in discovery order. */
export function reachableSchemas(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (schema: OpenApiSchema | undefined): void => {
    if (!schema) return;
    if (schema.$ref !== undefined) add(schema.$ref);
    for (const child of Object.values(schema.properties ?? {})) visit(child);
    if (schema.items) visit(schema.items);
    if (typeof schema.additionalProperties === "object") visit(schema.additionalProperties);
  };
  const add = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    visit(builtinSchema(name));
  };
  for (const name of names) add(name);
  return [...seen];
}
