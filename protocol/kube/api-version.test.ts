import assert from "node:assert/strict";
import { test } from "node:test";
import { apiVersionOf, groupOf, sameGroupKind, splitApiVersion, splitResource, versionOf } from "./api-version.ts";

test("an apiVersion is group/version, or a bare version for the core group", () => {
  const cases: [string, string, string][] = [
    ["v1", "", "v1"],
    ["apps/v1", "apps", "v1"],
    ["sedna.io/v1alpha1", "sedna.io", "v1alpha1"],
    ["", "", ""],
  ];
  for (const [apiVersion, group, version] of cases) {
    assert.deepEqual(splitApiVersion(apiVersion), { group, version }, apiVersion);
    assert.equal(groupOf(apiVersion), group);
    assert.equal(versionOf(apiVersion), version);
    if (apiVersion !== "") assert.equal(apiVersionOf(group, version), apiVersion);
  }
});

test("the same kind in the same group is one type whatever the version", () => {
  assert.equal(sameGroupKind({ apiVersion: "batch/v1", kind: "Job" }, { apiVersion: "batch/v2", kind: "Job" }), true);
  assert.equal(sameGroupKind({ apiVersion: "batch/v1", kind: "Job" }, { apiVersion: "other.io/v1", kind: "Job" }), false);
  assert.equal(sameGroupKind({ apiVersion: "v1", kind: "Pod" }, { apiVersion: "v1", kind: "Service" }), false);
  assert.equal(sameGroupKind({ apiVersion: "v1", kind: "Pod" }, { apiVersion: "v2", kind: "Pod" }), true, "the core group is one group");
});

test("a resource and its subresource, as rules name them", () => {
  assert.deepEqual(splitResource("pods"), { resource: "pods", subresource: "" });
  assert.deepEqual(splitResource("pods/binding"), { resource: "pods", subresource: "binding" });
  assert.deepEqual(splitResource("*/*"), { resource: "*", subresource: "*" });
});
