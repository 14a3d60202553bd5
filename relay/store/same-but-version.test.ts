import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { sameButVersion } from "./same-but-version.ts";

test("sameButVersion: equal but for the resourceVersion, whatever the order of keys", () => {
  const a: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", resourceVersion: "1", labels: { a: "1", b: "2" } } };
  assert.equal(sameButVersion(a, { kind: "Pod", apiVersion: "v1", metadata: { labels: { b: "2", a: "1" }, resourceVersion: "9", name: "p" } }), true);
  assert.equal(sameButVersion(a, { ...a, metadata: { ...a.metadata, labels: { a: "1" } } }), false);
});
