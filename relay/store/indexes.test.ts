import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { CacheIndexes } from "./indexes.ts";

const pod = (name: string, labels: Record<string, string>, version = "1"): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name, resourceVersion: version, labels } }) as KubeObject;

function names(objects: readonly KubeObject[] | undefined): string[] | undefined {
  return objects?.map((o) => o.metadata.name ?? "").sort();
}

test("a label index files objects by the label's value, follows relabels and deletes", () => {
  const indexes = new CacheIndexes();
  indexes.indexLabels(["app"], () => []);
  indexes.update(pod("a", { app: "web" }), false);
  indexes.update(pod("b", { app: "web", tier: "front" }), false);
  indexes.update(pod("c", {}), false);
  assert.deepEqual(names(indexes.withLabel("app", "web")), ["a", "b"]);
  indexes.update(pod("b", { app: "db" }, "2"), false);
  assert.deepEqual(names(indexes.withLabel("app", "web")), ["a"]);
  assert.deepEqual(indexes.withLabel("app", "db")?.map((o) => o.metadata.resourceVersion), ["2"], "the newest state");
  indexes.update(pod("a", { app: "web" }), true);
  assert.deepEqual(names(indexes.withLabel("app", "web")), []);
  assert.equal(indexes.withLabel("tier", "front"), undefined, "a label not indexed is not answered (the cache scans)");
});

test("a label added to a running cache is filled from what it holds; one no watch reads any more is dropped", () => {
  const indexes = new CacheIndexes();
  const held = [pod("a", { app: "web", tier: "front" }), pod("b", { tier: "back" })];
  indexes.indexLabels(["app"], () => held);
  indexes.indexLabels(["app", "tier"], () => held);
  assert.deepEqual(names(indexes.withLabel("tier", "back")), ["b"]);
  indexes.indexLabels(["tier"], () => held);
  assert.equal(indexes.withLabel("app", "web"), undefined);
});

test("field and label indexes are kept apart: a label key is not a field path", () => {
  const indexes = new CacheIndexes();
  indexes.indexFields(["spec.nodeName"], () => []);
  indexes.indexLabels(["app.kubernetes.io/name"], () => []);
  indexes.update({ ...pod("a", { "app.kubernetes.io/name": "web" }), spec: { nodeName: "n1" } } as KubeObject, false);
  assert.deepEqual(names(indexes.withLabel("app.kubernetes.io/name", "web")), ["a"], "a label key with dots and a slash");
  assert.deepEqual(names(indexes.withField("spec.nodeName", "n1")), ["a"]);
});
