import { isObject, type Json } from "../patch/merge.ts";
import type { Cause } from "../pipeline/errors.ts";

/** The subset of a structural openAPIV3Schema the sim understands. */
export interface Schema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly required?: readonly string[];
  readonly enum?: readonly Json[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly nullable?: boolean;
  readonly default?: Json;
  readonly allOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
  /** Built-in schemas only (a CRD's structural schema has no `$ref`): the name of the schema this one stands for. */
  readonly $ref?: string;
}

function show(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? "null";
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(schema: Schema, value: unknown): boolean {
  if (schema["x-kubernetes-int-or-string"]) return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
  if (schema.type === undefined) return true;
  const actual = typeOf(value);
  if (schema.type === "number") return actual === "number" || actual === "integer";
  return actual === schema.type;
}

const EMBEDDED = new Set(["apiVersion", "kind", "metadata"]);

/**
 * Validates `value` at `path` against a structural schema, returning the field errors
 * worded as kube-apiserver words them (`spec.url: Required value`).
 */
export function validate(schema: Schema, value: unknown, path: string): Cause[] {
  if (value === null) {
    if (schema.nullable) return [];
    if (schema.type === undefined && !schema["x-kubernetes-int-or-string"]) return [];
    return [{ field: path, reason: "FieldValueTypeInvalid", message: `Invalid value: "null": ${path} in body must be of type ${schema.type}: "null"` }];
  }
  if (!typeMatches(schema, value)) {
    const expected = schema["x-kubernetes-int-or-string"] ? "integer,string" : (schema.type ?? "");
    return [{ field: path, reason: "FieldValueTypeInvalid", message: `Invalid value: "${typeOf(value)}": ${path} in body must be of type ${expected}: "${typeOf(value)}"` }];
  }
  const causes: Cause[] = [];
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    causes.push({ field: path, reason: "FieldValueNotSupported", message: `Unsupported value: ${show(value)}: supported values: ${schema.enum.map(show).join(", ")}` });
  }
  if (typeof value === "string") causes.push(...validateString(schema, value, path));
  if (typeof value === "number") causes.push(...validateNumber(schema, value, path));
  if (Array.isArray(value)) causes.push(...validateArray(schema, value, path));
  if (isObject(value)) causes.push(...validateObject(schema, value, path));
  for (const sub of schema.allOf ?? []) causes.push(...validate(sub, value, path));
  if (schema.anyOf && !schema.anyOf.some((s) => validate(s, value, path).length === 0)) {
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${show(value)}: ${path} in body must match at least one schema in anyOf` });
  }
  if (schema.oneOf && schema.oneOf.filter((s) => validate(s, value, path).length === 0).length !== 1) {
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${show(value)}: ${path} in body must match exactly one schema in oneOf` });
  }
  return causes;
}

function validateString(schema: Schema, value: string, path: string): Cause[] {
  const causes: Cause[] = [];
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) {
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${show(value)}: ${path} in body should match '${schema.pattern}'` });
  }
  if (schema.minLength !== undefined && [...value].length < schema.minLength) {
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${show(value)}: ${path} in body should be at least ${schema.minLength} chars long` });
  }
  if (schema.maxLength !== undefined && [...value].length > schema.maxLength) {
    causes.push({ field: path, reason: "FieldValueTooLong", message: `Too long: may not be more than ${schema.maxLength} bytes` });
  }
  return causes;
}

function validateNumber(schema: Schema, value: number, path: string): Cause[] {
  const causes: Cause[] = [];
  if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) {
    const words = schema.exclusiveMinimum ? "greater than" : "greater than or equal to";
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${value}: ${path} in body should be ${words} ${schema.minimum}` });
  }
  if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) {
    const words = schema.exclusiveMaximum ? "less than" : "less than or equal to";
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${value}: ${path} in body should be ${words} ${schema.maximum}` });
  }
  return causes;
}

function validateArray(schema: Schema, value: unknown[], path: string): Cause[] {
  const causes: Cause[] = [];
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${value.length}: ${path} in body should have at least ${schema.minItems} items` });
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    causes.push({ field: path, reason: "FieldValueTooLong", message: `Too many: ${value.length}: must have at most ${schema.maxItems} items` });
  }
  if (schema.items) {
    const items = schema.items;
    value.forEach((item, i) => causes.push(...validate(items, item, `${path}[${i}]`)));
  }
  return causes;
}

function validateObject(schema: Schema, value: Record<string, Json>, path: string): Cause[] {
  const causes: Cause[] = [];
  const prefix = path === "" ? "" : `${path}.`;
  for (const name of schema.required ?? []) {
    if (value[name] === undefined) causes.push({ field: `${prefix}${name}`, reason: "FieldValueRequired", message: "Required value" });
  }
  const count = Object.keys(value).length;
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${count}: ${path} in body should have at least ${schema.minProperties} properties` });
  }
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    causes.push({ field: path, reason: "FieldValueTooLong", message: `Too many: ${count}: must have at most ${schema.maxProperties} items` });
  }
  for (const [name, child] of Object.entries(value)) {
    if (path === "" && EMBEDDED.has(name)) continue;
    const sub = schema.properties?.[name] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    if (sub) causes.push(...validate(sub, child, `${prefix}${name}`));
  }
  return causes;
}

/** What {@link prune} reports and how it follows `$ref`s (the built-in kinds' schemas use them). */
export interface PruneOptions {
  /** Receives the path of every field dropped (`spec.nodeNmae`, `spec.containers[0].imagee`, `spec.map[key].x`). */
  readonly dropped?: string[];
  /** Resolves a `$ref`; a `$ref` that does not resolve keeps its value whole. */
  readonly resolve?: (ref: string) => Schema | undefined;
}

/**
 * Drops fields the schema does not declare, unless it preserves unknown fields (as the API
 * server prunes), reporting each dropped path to `options.dropped`. Every write passes
 * here, so the path of a field is only spelled out when that field is dropped: the walk
 * carries the path as segments.
 */
export function prune(schema: Schema, value: Json, root = false, options: PruneOptions = {}, path = ""): Json {
  return pruneAt(schema, value, root, options, path === "" ? [] : [path]);
}

/** `spec`, `.containers`, `[0]`, `[key]` segments to `spec.containers[0]`. */
function spell(segments: readonly string[]): string {
  let out = "";
  for (const segment of segments) out += out === "" || segment.startsWith("[") ? segment : `.${segment}`;
  return out;
}

function pruneAt(schema: Schema, value: Json, root: boolean, options: PruneOptions, at: string[]): Json {
  const target = schema.$ref === undefined ? schema : options.resolve?.(schema.$ref);
  if (!target) return value;
  if (Array.isArray(value)) {
    const items = target.items;
    if (!items) return value;
    return value.map((v, i) => {
      at.push(`[${i}]`);
      const next = pruneAt(items, v, false, options, at);
      at.pop();
      return next;
    });
  }
  if (!isObject(value)) return value;
  const embedded = root || target["x-kubernetes-embedded-resource"] === true;
  const preserve = target["x-kubernetes-preserve-unknown-fields"] === true;
  const additional = typeof target.additionalProperties === "object" ? target.additionalProperties : undefined;
  const out: Record<string, Json> = {};
  for (const [name, child] of Object.entries(value)) {
    const declared = target.properties?.[name];
    // apiVersion, kind and metadata of an (embedded) object are always kept.
    if (embedded && EMBEDDED.has(name)) out[name] = child;
    else if (declared || additional) {
      at.push(declared ? name : `[${name}]`);
      out[name] = pruneAt((declared ?? additional) as Schema, child, false, options, at);
      at.pop();
    } else if (preserve || target.additionalProperties === true) out[name] = child;
    else options.dropped?.push(spell([...at, name]));
  }
  return out;
}

/** Fills in `default` values for absent properties, recursively. */
export function applyDefaults(schema: Schema, value: Json): Json {
  if (Array.isArray(value)) return schema.items ? value.map((v) => applyDefaults(schema.items as Schema, v)) : value;
  if (!isObject(value)) return value;
  const out: Record<string, Json> = { ...value };
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (out[name] === undefined && sub.default !== undefined) out[name] = structuredClone(sub.default);
    const current = out[name];
    if (current !== undefined) out[name] = applyDefaults(sub, current);
  }
  if (typeof schema.additionalProperties === "object") {
    const additional = schema.additionalProperties;
    for (const [name, child] of Object.entries(out)) {
      if (!schema.properties?.[name]) out[name] = applyDefaults(additional, child);
    }
  }
  return out;
}
