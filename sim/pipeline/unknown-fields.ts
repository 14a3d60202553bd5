/**
 * Unknown fields, as kube-apiserver treats them: decoding drops every field the kind's
 * schema does not declare (built-in kinds: their OpenAPI schemas; custom resources: the
 * CRD's structural schema, metadata against ObjectMeta), and `fieldValidation` decides
 * what the client hears: nothing (`Ignore`), a `Warning` header per field (`Warn`, the
 * default), or a 400 (`Strict`, kubectl's default).
 */
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError } from "../contract.ts";
import { prune, type Schema } from "../crd/schema.ts";
import type { Json } from "../patch/merge.ts";
import { splitApiVersion, versionOf } from "../../protocol/kube/api-version.ts";
import type { ResourceType } from "../registry/resource.ts";
import { builtinSchema, builtinSchemaName, OBJECT_META } from "../schema/builtin.ts";

/** The `fieldValidation` directive of a create, update or patch. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

const DIRECTIVES: readonly FieldValidation[] = ["Ignore", "Strict", "Warn"];

/** The `fieldValidation` query parameter; absent or empty means `Warn`, anything unknown is refused as upstream. */
export function parseFieldValidation(value: string | null, operation: "Create" | "Update" | "Patch"): FieldValidation {
  if (value === null || value === "") return "Warn";
  const found = DIRECTIVES.find((d) => d === value);
  if (found) return found;
  throw new ApiError(422, "Invalid", `${operation}Options.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`, {
    group: "meta.k8s.io",
    kind: `${operation}Options`,
    causes: [{ reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`, field: "fieldValidation" }],
  });
}

/** The object with its unknown fields dropped, and their paths in the order met. */
export interface Decoded {
  readonly object: KubeObject;
  readonly unknown: readonly string[];
}

/** The schema an object of `resource` at `apiVersion` is decoded with, if the sim knows one. */
function schemaOf(resource: ResourceType, apiVersion: string): { schema: Schema; custom: boolean } | undefined {
  const { version } = splitApiVersion(apiVersion);
  if (resource.crd) {
    const schema = resource.crd.schemas.get(version) as Schema | undefined;
    return schema ? { schema, custom: true } : undefined;
  }
  const name = builtinSchemaName(resource.group, version, resource.kind);
  const schema = name === undefined ? undefined : builtinSchema(name);
  return schema ? { schema, custom: false } : undefined;
}

/** Drops the fields `resource`'s schema does not declare (a kind without a known schema keeps everything). */
export function dropUnknownFields(resource: ResourceType, object: KubeObject, apiVersion: string): Decoded {
  const found = schemaOf(resource, apiVersion);
  if (!found) return { object, unknown: [] };
  const dropped: string[] = [];
  const options = { dropped, resolve: builtinSchema };
  let json = prune(found.schema, object as unknown as Json, found.custom, options) as Record<string, Json>;
  // A custom resource keeps its metadata whole in the CRD schema; it is ObjectMeta all the same.
  const metadata = builtinSchema(OBJECT_META);
  if (found.custom && metadata && json.metadata !== undefined) json = { ...json, metadata: prune(metadata, json.metadata, false, options, "metadata") };
  return { object: json as unknown as KubeObject, unknown: dropped };
}

/** The paths in `after` that `before` did not have: what a patch brought in. */
export function introduced(after: readonly string[], before: readonly string[]): string[] {
  const old = new Set(before);
  return after.filter((path) => !old.has(path));
}

/** The text of one unknown-field warning or strict error (`unknown field "spec.nodeNmae"`). */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/** `strict decoding error: unknown field "a", unknown field "b"`. */
export function strictDecodingMessage(unknown: readonly string[]): string {
  return `strict decoding error: ${unknown.map(unknownFieldMessage).join(", ")}`;
}

/** The 400 of a Strict create or update: `Pod in version "v1" cannot be handled as a Pod: strict decoding error: ...`. */
export function strictDecodingError(kind: string, apiVersion: string, unknown: readonly string[]): ApiError {
  return new ApiError(400, "BadRequest", `${kind} in version ${JSON.stringify(versionOf(apiVersion))} cannot be handled as a ${kind}: ${strictDecodingMessage(unknown)}`);
}

/** The 422 of a Strict patch: the patch (as upstream prints it) is the invalid value. */
export function strictPatchError(patchShown: string, unknown: readonly string[]): ApiError {
  const message = `Invalid value: ${JSON.stringify(patchShown)}: ${strictDecodingMessage(unknown)}`;
  return new ApiError(422, "Invalid", ` "" is invalid: patch: ${message}`, { causes: [{ reason: "FieldValueInvalid", message, field: "patch" }] });
}

/**
 * The 400 of a server-side apply naming an unknown field: field management needs every
 * field typed, so upstream refuses it whatever the fieldValidation.
 */
export function undeclaredFieldError(object: KubeObject, unknown: readonly string[]): ApiError {
  const { group, version } = splitApiVersion(object.apiVersion);
  const nn = `${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`;
  return new ApiError(400, "BadRequest", `failed to create typed patch object (${nn}; ${group}/${version}, Kind=${object.kind}): .${unknown[0] ?? ""}: field not declared in schema`);
}

/** How Go's `%+v` prints a decoded JSON value (the strategic merge patch in a strict patch error). */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goFormat).join(" ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, v]) => `${k}:${goFormat(v)}`).join(" ")}]`;
  }
  if (typeof value === "number" && value !== 0 && (Math.abs(value) < 1e-4 || Math.abs(value) >= 1e21)) {
    // %v of a float64 is %g: exponent form with at least two exponent digits.
    return value.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  }
  return String(value);
}
