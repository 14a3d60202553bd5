import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject, Watch } from "../../protocol/index.ts";
import { batchMilliseconds, dirtyKeys } from "./dirty-keys.ts";

test("a child whose label moved it to another parent makes both parents dirty; an unmoved one only its own", () => {
  const route = { watch: { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "label" as const, label: "job" } }, parentNamespaced: true, parents: () => [] };
  const pod = (job: string, rv: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name: "p", uid: "u-p", resourceVersion: rv, labels: { job } } });
  assert.deepEqual(dirtyKeys(route, pod("b", "2"), pod("a", "1")), ["ns/b", "ns/a"]);
  assert.deepEqual(dirtyKeys(route, pod("a", "2"), pod("a", "1")), ["ns/a"]);
  assert.deepEqual(dirtyKeys(route, pod("a", "2")), ["ns/a"]);
});

test("a deletion runs at once, unless its watch batches deletions too; any other change waits out the watch's batch period", () => {
  const watch: Watch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "field", path: "spec.nodeName" }, batchMilliseconds: 500 };
  assert.deepEqual([batchMilliseconds(watch, "DELETED"), batchMilliseconds(watch, "MODIFIED"), batchMilliseconds(watch, "ADDED")], [0, 500, 500]);
  assert.equal(batchMilliseconds({ ...watch, batchDeletions: true }, "DELETED"), 500);
  assert.equal(batchMilliseconds({ ...watch, batchMilliseconds: undefined }, "MODIFIED"), 0);
});
