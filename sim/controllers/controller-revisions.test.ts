import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { controllerRevision, revisionNumber } from "./controller-revisions.ts";
import { OwnedIndex } from "./owned-index.ts";

const ds = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "agent", namespace: "ns", uid: "u1" }, spec: { template: { metadata: { labels: { app: "agent" } }, spec: { containers: [{ name: "a", image: "x" }] } } } } as KubeObject;

test("a ControllerRevision carries the template as the replace patch kubectl rollout undo applies, labelled and owned", () => {
  const history = controllerRevision(ds, { apiVersion: "apps/v1", kind: "DaemonSet" }, "abc", "controller-revision-hash", 4) as KubeObject & { data: unknown };
  assert.equal(history.metadata.name, "agent-abc");
  assert.deepEqual(history.metadata.labels, { app: "agent", "controller-revision-hash": "abc" });
  assert.equal(history.metadata.ownerReferences?.[0]?.uid, "u1");
  assert.deepEqual(history.data, { spec: { template: { $patch: "replace", metadata: { labels: { app: "agent" } }, spec: { containers: [{ name: "a", image: "x" }] } } } });
  assert.equal(revisionNumber(history), 4);
});

test("the index keeps each owner's revisions and names the owner to sync", () => {
  const index = new OwnedIndex("DaemonSet");
  const history = controllerRevision(ds, { apiVersion: "apps/v1", kind: "DaemonSet" }, "abc", "controller-revision-hash", 1);
  assert.equal(index.observe({ type: "ADDED", object: history }), "ns/agent");
  assert.equal(index.of("u1").length, 1);
  assert.equal(new OwnedIndex("StatefulSet").observe({ type: "ADDED", object: history }), undefined);
  index.observe({ type: "DELETED", object: history });
  assert.deepEqual(index.of("u1"), []);
});
