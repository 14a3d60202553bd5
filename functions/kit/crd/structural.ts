/**
 * Converts the JSON Schema (draft 2020-12) that `z.toJSONSchema` emits into a Kubernetes
 * *structural* OpenAPI v3 schema, as apiextensions.k8s.io/v1 requires: a `type` on every
 * node (or an `x-kubernetes-*` escape), no `$ref`, no `anyOf` carrying types,
 * `additionalProperties` only for maps, `nullable` instead of `type: [.., "null"]`.
 */

/** A JSON Schema or OpenAPI schema node, as plain data. */
export type SchemaNode = { [key: string]: unknown };

const PRESERVE = "x-kubernetes-preserve-unknown-fields";
const INT_OR_STRING = "x-kubernetes-int-or-string";
const SAFE_MAX = Number.MAX_SAFE_INTEGER;
const INT32_MAX = 2_147_483_647;

/** Keys copied as they are (value validations and documentation Kubernetes accepts). */
const KEPT = new Set([
  "description",
  "format",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "multipleOf",
  "default",
  "enum",
]);

/** Converts a whole `z.toJSONSchema` result (root may carry `$defs`). */
export function toStructural(root: SchemaNode): SchemaNode {
  const defs = { ...asNode(root["$defs"]), ...asNode(root["definitions"]) };
  return convert(root, defs, new Set());
}

function asNode(value: unknown): SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as SchemaNode) : {};
}

function convert(input: SchemaNode, defs: SchemaNode, seen: ReadonlySet<string>): SchemaNode {
  const node = resolveRef(input, defs, seen);
  if (node === undefined) return { [PRESERVE]: true };
  const refName = typeof input["$ref"] === "string" ? input["$ref"] : undefined;
  const inner = refName === undefined ? seen : new Set([...seen, refName]);
  const merged = mergeAllOf(node, defs, inner);
  const union = merged["anyOf"] ?? merged["oneOf"];
  if (Array.isArray(union)) return convertUnion(merged, union as SchemaNode[], defs, inner);
  return convertPlain(merged, defs, inner);
}

/** Inlines a `$ref` to `#/$defs/x`; a recursive reference becomes a free-form node. */
function resolveRef(node: SchemaNode, defs: SchemaNode, seen: ReadonlySet<string>): SchemaNode | undefined {
  const ref = node["$ref"];
  if (typeof ref !== "string") return node;
  if (seen.has(ref)) return undefined;
  const name = ref.replace(/^#\/(\$defs|definitions)\//, "");
  const target = asNode(defs[name]);
  const { $ref: _ref, ...rest } = node;
  return { ...target, ...rest };
}

function mergeAllOf(node: SchemaNode, defs: SchemaNode, seen: ReadonlySet<string>): SchemaNode {
  const all = node["allOf"];
  if (!Array.isArray(all)) return node;
  const { allOf: _all, ...rest } = node;
  return (all as SchemaNode[]).reduce<SchemaNode>(
    (acc, part) => mergeObjects(acc, resolveRef(part, defs, seen) ?? { additionalProperties: {} }),
    rest,
  );
}

function mergeObjects(a: SchemaNode, b: SchemaNode): SchemaNode {
  const properties = { ...asNode(a["properties"]), ...asNode(b["properties"]) };
  const required = [...new Set([...stringList(a["required"]), ...stringList(b["required"])])];
  const out: SchemaNode = { ...a, ...b, properties };
  if (required.length > 0) out["required"] = required;
  return out;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** anyOf/oneOf: int|string becomes int-or-string, object unions merge, T|null becomes nullable. */
function convertUnion(node: SchemaNode, members: SchemaNode[], defs: SchemaNode, seen: ReadonlySet<string>): SchemaNode {
  const { anyOf: _a, oneOf: _o, ...rest } = node;
  const resolved = members.map((m) => resolveRef(m, defs, seen) ?? { additionalProperties: {} });
  const nonNull = resolved.filter((m) => m["type"] !== "null");
  const nullable = nonNull.length < resolved.length;
  const types = new Set(nonNull.map((m) => m["type"]));
  let out: SchemaNode;
  if (nonNull.length === 1 && nonNull[0] !== undefined) {
    out = convert({ ...nonNull[0], ...rest }, defs, seen);
  } else if (types.size === 2 && types.has("string") && (types.has("integer") || types.has("number"))) {
    out = { ...keep(rest), [INT_OR_STRING]: true };
  } else if (types.size === 1 && types.has("object")) {
    const merged = nonNull.reduce<SchemaNode>((acc, m) => mergeObjects(acc, { ...m, required: [] }), { type: "object" });
    const common = nonNull.map((m) => stringList(m["required"])).reduce((a, b) => a.filter((k) => b.includes(k)));
    out = convert({ ...merged, required: common, ...rest }, defs, seen);
  } else if (types.size === 1 && nonNull.every((m) => Array.isArray(m["enum"]) || "const" in m)) {
    const values = nonNull.flatMap((m) => (Array.isArray(m["enum"]) ? m["enum"] : [m["const"]]));
    out = convert({ type: nonNull[0]?.["type"], enum: values, ...rest }, defs, seen);
  } else {
    out = { ...keep(rest), [PRESERVE]: true };
  }
  if (nullable) out["nullable"] = true;
  return out;
}

function keep(node: SchemaNode): SchemaNode {
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "description" || key === "default" || key.startsWith("x-kubernetes-")) out[key] = value;
  }
  return out;
}

function convertPlain(node: SchemaNode, defs: SchemaNode, seen: ReadonlySet<string>): SchemaNode {
  const out: SchemaNode = {};
  let type = node["type"];
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== "null");
    if (nonNull.length < type.length) out["nullable"] = true;
    type = nonNull.length === 1 ? nonNull[0] : undefined;
  }
  if (typeof type === "string") out["type"] = type;
  for (const [key, value] of Object.entries(node)) {
    if (KEPT.has(key) || key.startsWith("x-kubernetes-")) out[key] = value;
  }
  if ("const" in node) out["enum"] = [node["const"]];
  copyPattern(node, out);
  copyBounds(node, out);
  if (out["type"] === "object" || node["properties"] !== undefined) convertObject(node, out, defs, seen);
  if (out["type"] === "array" || node["items"] !== undefined) {
    out["type"] = "array";
    out["items"] = node["items"] === undefined ? { [PRESERVE]: true } : convert(asNode(node["items"]), defs, seen);
  }
  if (out["type"] === undefined && out[INT_OR_STRING] !== true) out[PRESERVE] = true;
  return out;
}

/** Patterns with lookaround are not RE2; a format already says what a date-time is. */
function copyPattern(node: SchemaNode, out: SchemaNode): void {
  const pattern = node["pattern"];
  if (typeof pattern !== "string" || node["format"] !== undefined) return;
  if (/\(\?[=!<]/.test(pattern)) return;
  out["pattern"] = pattern;
}

function copyBounds(node: SchemaNode, out: SchemaNode): void {
  const min = node["minimum"];
  const max = node["maximum"];
  // zod's int32 bounds are a format in OpenAPI; the safe-integer bounds of int() are noise.
  const int32 = node["type"] === "integer" && max === INT32_MAX;
  if (int32) out["format"] = "int32";
  if (typeof min === "number" && min > -SAFE_MAX && !(int32 && min === -INT32_MAX - 1)) out["minimum"] = min;
  if (typeof max === "number" && max < SAFE_MAX && !int32) out["maximum"] = max;
  // 2020-12 exclusive bounds are numbers; OpenAPI v3.0 uses booleans beside minimum/maximum.
  if (typeof node["exclusiveMinimum"] === "number") {
    out["minimum"] = node["exclusiveMinimum"];
    out["exclusiveMinimum"] = true;
  }
  if (typeof node["exclusiveMaximum"] === "number") {
    out["maximum"] = node["exclusiveMaximum"];
    out["exclusiveMaximum"] = true;
  }
}

function convertObject(node: SchemaNode, out: SchemaNode, defs: SchemaNode, seen: ReadonlySet<string>): void {
  out["type"] = "object";
  const properties = asNode(node["properties"]);
  const names = Object.keys(properties);
  if (names.length > 0) {
    out["properties"] = Object.fromEntries(names.map((name) => [name, convert(asNode(properties[name]), defs, seen)]));
  }
  const required = stringList(node["required"]).filter((name) => names.includes(name));
  if (required.length > 0) out["required"] = required;
  const additional = node["additionalProperties"];
  if (additional === true || (typeof additional === "object" && additional !== null && Object.keys(additional).length === 0)) {
    out[PRESERVE] = true;
  } else if (typeof additional === "object" && additional !== null) {
    // Kubernetes allows additionalProperties only on maps, never beside properties.
    if (names.length === 0) out["additionalProperties"] = convert(additional as SchemaNode, defs, seen);
    else out[PRESERVE] = true;
  }
}

/**
 * What keeps a schema from being structural, as `path: problem` strings (empty when it
 * is): a node without a type, a JSON Schema keyword Kubernetes rejects, or
 * additionalProperties beside properties.
 */
export function structuralProblems(node: unknown, path = "$"): string[] {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return [`${path}: not a schema`];
  const schema = node as SchemaNode;
  const problems: string[] = [];
  for (const key of ["$schema", "$ref", "$defs", "anyOf", "oneOf", "allOf", "const", "propertyNames"]) {
    if (key in schema) problems.push(`${path}: has ${key}`);
  }
  const escaped = schema[INT_OR_STRING] === true || schema[PRESERVE] === true;
  if (typeof schema["type"] !== "string" && !escaped) problems.push(`${path}: has no type`);
  const additional = schema["additionalProperties"];
  if (additional !== undefined) {
    if (schema["properties"] !== undefined) problems.push(`${path}: has properties and additionalProperties`);
    problems.push(...structuralProblems(additional, `${path}.*`));
  }
  for (const [name, child] of Object.entries(asNode(schema["properties"]))) problems.push(...structuralProblems(child, `${path}.${name}`));
  if (schema["items"] !== undefined) problems.push(...structuralProblems(schema["items"], `${path}[]`));
  return problems;
}
