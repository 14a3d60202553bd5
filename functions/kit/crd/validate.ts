import type { SchemaNode } from "./structural.ts";

/** One validation failure, with the dot path of the field (`spec.trainingWorkers.0.template`). */
export interface Violation {
  readonly path: string;
  readonly message: string;
}

/** How fields the schema does not know are treated: pruned (the default) or rejected (kubectl --validate=strict). */
export interface ValidateOptions {
  readonly unknownFields?: "prune" | "reject";
}

/**
 * Validates a value against a structural schema the way the API server does for a
 * custom resource (the subset edgeloop's generated schemas use). Pure; returns every violation.
 */
export function validateStructural(schema: SchemaNode, value: unknown, options: ValidateOptions = {}): Violation[] {
  const out: Violation[] = [];
  check(schema, value, [], options.unknownFields ?? "prune", out);
  return out;
}

function check(schema: SchemaNode, value: unknown, path: readonly string[], unknown: "prune" | "reject", out: Violation[]): void {
  const at = path.join(".");
  if (value === null) {
    if (schema["nullable"] !== true) out.push({ path: at, message: "must not be null" });
    return;
  }
  if (schema["x-kubernetes-int-or-string"] === true) {
    if (!(typeof value === "string" || Number.isInteger(value))) out.push({ path: at, message: "must be an integer or a string" });
    return;
  }
  const type = schema["type"];
  if (typeof type === "string" && !hasType(value, type)) {
    out.push({ path: at, message: `must be of type ${type}` });
    return;
  }
  checkValue(schema, value, at, out);
  if (Array.isArray(value)) {
    const items = schema["items"];
    if (isNode(items)) value.forEach((item, index) => check(items, item, [...path, String(index)], unknown, out));
  } else if (isNode(value)) {
    checkObject(schema, value, path, unknown, out);
  }
}

function checkObject(schema: SchemaNode, value: SchemaNode, path: readonly string[], unknown: "prune" | "reject", out: Violation[]): void {
  const properties = isNode(schema["properties"]) ? schema["properties"] : {};
  for (const name of Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []) {
    if (value[name] === undefined) out.push({ path: [...path, name].join("."), message: "Required value" });
  }
  const additional = schema["additionalProperties"];
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  for (const [name, child] of Object.entries(value)) {
    // The root's metadata is ObjectMeta, which the API server validates itself.
    if (path.length === 0 && name === "metadata") continue;
    const property = properties[name];
    if (isNode(property)) check(property, child, [...path, name], unknown, out);
    else if (isNode(additional)) check(additional, child, [...path, name], unknown, out);
    else if (!preserve && unknown === "reject") out.push({ path: [...path, name].join("."), message: "unknown field" });
  }
}

function checkValue(schema: SchemaNode, value: unknown, at: string, out: Violation[]): void {
  const values = schema["enum"];
  if (Array.isArray(values) && !values.some((v) => v === value)) {
    out.push({ path: at, message: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });
  }
  if (typeof value === "string") checkString(schema, value, at, out);
  if (typeof value === "number") checkNumber(schema, value, at, out);
  if (Array.isArray(value)) {
    if (typeof schema["minItems"] === "number" && value.length < schema["minItems"]) out.push({ path: at, message: `must have at least ${schema["minItems"]} items` });
    if (typeof schema["maxItems"] === "number" && value.length > schema["maxItems"]) out.push({ path: at, message: `must have at most ${schema["maxItems"]} items` });
  }
}

function checkString(schema: SchemaNode, value: string, at: string, out: Violation[]): void {
  if (typeof schema["minLength"] === "number" && value.length < schema["minLength"]) out.push({ path: at, message: `must be at least ${schema["minLength"]} characters` });
  if (typeof schema["maxLength"] === "number" && value.length > schema["maxLength"]) out.push({ path: at, message: `must be at most ${schema["maxLength"]} characters` });
  if (typeof schema["pattern"] === "string" && !new RegExp(schema["pattern"], "u").test(value)) out.push({ path: at, message: `must match ${schema["pattern"]}` });
  if (schema["format"] === "date-time" && Number.isNaN(Date.parse(value))) out.push({ path: at, message: "must be a date-time" });
}

function checkNumber(schema: SchemaNode, value: number, at: string, out: Violation[]): void {
  const min = schema["minimum"];
  const max = schema["maximum"];
  if (typeof min === "number" && (schema["exclusiveMinimum"] === true ? value <= min : value < min)) out.push({ path: at, message: `must be greater than${schema["exclusiveMinimum"] === true ? "" : " or equal to"} ${min}` });
  if (typeof max === "number" && (schema["exclusiveMaximum"] === true ? value >= max : value > max)) out.push({ path: at, message: `must be less than${schema["exclusiveMaximum"] === true ? "" : " or equal to"} ${max}` });
  if (schema["format"] === "int32" && (value < -2_147_483_648 || value > 2_147_483_647)) out.push({ path: at, message: "must fit in 32 bits" });
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return isNode(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    default:
      return true;
  }
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
