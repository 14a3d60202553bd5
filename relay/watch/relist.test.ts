import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { isTooLargeResourceVersion, relistChanges, relistReason } from "./relist.ts";

test("a 504 with the ResourceVersionTooLarge cause (or its message) is a too-large resourceVersion; other errors are not", () => {
  assert.ok(isTooLargeResourceVersion({ code: 504, reason: "Timeout", details: { causes: [{ reason: "ResourceVersionTooLarge" }] } }));
  assert.ok(isTooLargeResourceVersion({ code: 504, message: "Timeout: Too large resource version: 15000, current: 100" }));
  assert.ok(!isTooLargeResourceVersion({ code: 504, message: "Timeout: request did not complete" }));
  assert.ok(!isTooLargeResourceVersion({ code: 410, reason: "Expired" }));
  assert.ok(!isTooLargeResourceVersion(null));
});

test("a relist whose list is behind what was seen is a rollback, unless the server said too-large", () => {
  assert.equal(relistReason("expired", 100, 14_681), "rollback");
  assert.equal(relistReason("forced", 100, 14_681), "rollback");
  assert.equal(relistReason(undefined, 100, 14_681), "rollback");
  assert.equal(relistReason("too-large", 100, 14_681), "too-large");
  assert.equal(relistReason("expired", 15_000, 14_681), "expired");
  assert.equal(relistReason("forced", undefined, 14_681), "forced", "an opaque resourceVersion is not compared");
  assert.equal(relistReason(undefined, 15_000, 14_681), "expired");
});

test("a relist's changes: what the list lacks vanished (last known state), a new uid under an old name was replaced", () => {
  const cm = (name: string, uid: string, rv = "1"): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "ns", name, uid, resourceVersion: rv } }) as KubeObject;
  const { vanished, replaced } = relistChanges([cm("kept", "u1"), cm("gone", "u2", "7"), cm("again", "u3")], [cm("kept", "u1", "2"), cm("again", "u9"), cm("new", "u4")]);
  assert.deepEqual([...vanished.keys()], ["ns/gone"]);
  assert.equal(vanished.get("ns/gone")?.metadata.resourceVersion, "7", "the state the cache held");
  assert.deepEqual([...replaced.keys()], ["ns/again"]);
  assert.equal(replaced.get("ns/again")?.metadata.uid, "u3", "the old object, to be delivered as deleted");
});
