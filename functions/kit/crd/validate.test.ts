import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { structuralSchemaOf } from "./generate.ts";
import { validateStructural } from "./validate.ts";

const schema = structuralSchemaOf(
  z.object({
    name: z.string().min(1),
    replicas: z.int32().min(1).optional(),
    mode: z.enum(["a", "b"]).optional(),
    labels: z.record(z.string(), z.string()).optional(),
    template: z.object({ image: z.string() }).loose().optional(),
    items: z.array(z.object({ key: z.string() })).optional(),
  }),
);

test("a valid value has no violations, unknown fields inside a free-form object included", () => {
  assert.deepEqual(validateStructural(schema, { name: "x", replicas: 2, labels: { a: "b" }, template: { image: "i", extra: 1 } }, { unknownFields: "reject" }), []);
});

test("each violation names its field", () => {
  const violations = validateStructural(schema, { replicas: "two", mode: "c", labels: { a: 1 }, items: [{}] });
  assert.deepEqual(
    violations.map((v) => v.path).sort(),
    ["items.0.key", "labels.a", "mode", "name", "replicas"],
  );
  assert.match(violations.find((v) => v.path === "replicas")?.message ?? "", /integer/);
  assert.equal(violations.find((v) => v.path === "name")?.message, "Required value");
});

test("unknown fields are pruned by default and rejected in strict mode", () => {
  assert.deepEqual(validateStructural(schema, { name: "x", typo: 1 }), []);
  assert.deepEqual(validateStructural(schema, { name: "x", typo: 1 }, { unknownFields: "reject" }), [{ path: "typo", message: "unknown field" }]);
});

test("bounds are checked", () => {
  assert.deepEqual(validateStructural(schema, { name: "x", replicas: 0 }).map((v) => v.path), ["replicas"]);
  assert.deepEqual(validateStructural(schema, { name: "" }).map((v) => v.path), ["name"]);
});
