import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { structuralSchemaOf } from "./generate.ts";
import { structuralProblems, toStructural, type SchemaNode } from "./structural.ts";

function assertStructural(node: unknown): void {
  assert.deepEqual(structuralProblems(node), []);
}

test("objects, maps, loose objects and free-form values become structural", () => {
  const schema = structuralSchemaOf(
    z.object({
      name: z.string(),
      labels: z.record(z.string(), z.string()).optional(),
      template: z.object({ image: z.string() }).loose(),
      anything: z.unknown(),
    }),
  );
  assertStructural(schema);
  assert.deepEqual(schema["required"], ["name", "template", "anything"]);
  const properties = schema["properties"] as Record<string, SchemaNode>;
  assert.deepEqual(properties["labels"], { type: "object", additionalProperties: { type: "string" } });
  assert.equal(properties["template"]?.["x-kubernetes-preserve-unknown-fields"], true);
  assert.deepEqual(properties["anything"], { "x-kubernetes-preserve-unknown-fields": true });
  assert.equal("additionalProperties" in schema, false, "a strict object is pruned, not additionalProperties: false");
});

test("int|string is x-kubernetes-int-or-string, T|null is nullable, literals are enums", () => {
  const schema = structuralSchemaOf(
    z.object({ port: z.union([z.int(), z.string()]), note: z.string().nullable(), kind: z.literal("Model"), mode: z.enum(["a", "b"]) }),
  );
  assertStructural(schema);
  const p = schema["properties"] as Record<string, SchemaNode>;
  assert.deepEqual(p["port"], { "x-kubernetes-int-or-string": true });
  assert.deepEqual(p["note"], { type: "string", nullable: true });
  assert.deepEqual(p["kind"], { type: "string", enum: ["Model"] });
  assert.deepEqual(p["mode"], { type: "string", enum: ["a", "b"] });
});

test("numbers: int32 is a format, exclusive bounds become OpenAPI v3.0 booleans, safe-integer bounds vanish", () => {
  const schema = structuralSchemaOf(z.object({ a: z.int32(), b: z.number().positive(), c: z.int(), d: z.int32().min(1) }));
  const p = schema["properties"] as Record<string, SchemaNode>;
  assert.deepEqual(p["a"], { type: "integer", format: "int32" });
  assert.deepEqual(p["b"], { type: "number", minimum: 0, exclusiveMinimum: true });
  assert.deepEqual(p["c"], { type: "integer" });
  assert.deepEqual(p["d"], { type: "integer", format: "int32", minimum: 1 });
});

test("date-time keeps its format but not zod's lookahead-free-or-not pattern; RE2-hostile patterns are dropped", () => {
  const schema = structuralSchemaOf(z.object({ t: z.iso.datetime(), x: z.string().regex(/^(?!x)a$/), y: z.string().regex(/^[a-z]+$/) }));
  const p = schema["properties"] as Record<string, SchemaNode>;
  assert.deepEqual(p["t"], { type: "string", format: "date-time" });
  assert.deepEqual(p["x"], { type: "string" });
  assert.deepEqual(p["y"], { type: "string", pattern: "^[a-z]+$" });
});

test("unions of objects merge their properties; only common fields stay required", () => {
  const schema = structuralSchemaOf(z.union([z.object({ a: z.string(), s3: z.string() }), z.object({ a: z.string(), ws: z.object({}) })]));
  assertStructural(schema);
  assert.deepEqual(Object.keys(schema["properties"] as object).sort(), ["a", "s3", "ws"]);
  assert.deepEqual(schema["required"], ["a"]);
});

test("$ref is inlined and recursion becomes free-form", () => {
  const root: SchemaNode = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $ref: "#/$defs/Node",
    $defs: { Node: { type: "object", properties: { name: { type: "string" }, child: { $ref: "#/$defs/Node" } } } },
  };
  const out = toStructural(root);
  const { $schema: _s, $defs: _d, ...schema } = out;
  assertStructural(schema);
  const properties = schema["properties"] as Record<string, SchemaNode>;
  assert.deepEqual(properties["name"], { type: "string" });
  assert.deepEqual(properties["child"], { "x-kubernetes-preserve-unknown-fields": true });
});

test("structuralProblems finds what Kubernetes would reject", () => {
  assert.deepEqual(structuralProblems({ type: "object", properties: { a: { anyOf: [{ type: "string" }] } }, additionalProperties: { type: "string" } }), [
    "$: has properties and additionalProperties",
    "$.a: has anyOf",
    "$.a: has no type",
  ]);
});
