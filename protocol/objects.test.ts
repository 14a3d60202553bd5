import assert from "node:assert/strict";
import { test } from "node:test";
import { LabelValue, NamespaceName, ObjectMeta, ObjectName, QualifiedName } from "./objects.ts";

test("object names: any path segment of printable characters, at most 253", () => {
  for (const good of ["p", "a.b-c", "system:node", "😀"]) assert.equal(ObjectName.safeParse(good).success, true, good);
  for (const bad of ["a\u0000b", "a\u007fb", "a\ud800", "\udc00a", "a/b", "a%2f", ".", "..", "x".repeat(254)]) {
    assert.equal(ObjectName.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

test("namespaces, label keys and label values: the API server's syntax", () => {
  assert.equal(NamespaceName.safeParse("kube-system").success, true);
  for (const bad of ["Default", "-a", "a.b", "x".repeat(64)]) assert.equal(NamespaceName.safeParse(bad).success, false, bad);
  for (const good of ["app", "example.com/app", "A_b.c-D"]) assert.equal(QualifiedName.safeParse(good).success, true, good);
  for (const bad of ["", "bad key", "/app", "Example.com/app", "a/", `${"x".repeat(64)}`, "a\u0000"]) assert.equal(QualifiedName.safeParse(bad).success, false, bad);
  for (const good of ["", "v1.2_3-x"]) assert.equal(LabelValue.safeParse(good).success, true, good);
  for (const bad of ["-v", "a b", "x".repeat(64), "a\u0000"]) assert.equal(LabelValue.safeParse(bad).success, false, bad);
});

test("ObjectMeta names the refused field and keeps the fields it does not read", () => {
  const parsed = ObjectMeta.safeParse({ name: "p", labels: { ok: "yes", "no way": "x" } });
  assert.equal(parsed.success, false);
  assert.deepEqual(parsed.error?.issues[0]?.path, ["labels", "no way"]);
  assert.deepEqual(ObjectMeta.parse({ name: "p", namespace: "default", extra: 1 }), { name: "p", namespace: "default", extra: 1 });
});
