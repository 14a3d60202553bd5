import assert from "node:assert/strict";
import { test } from "node:test";
import { valuesAt, type KubeObject } from "../../protocol/index.ts";
import { ObjectIndex } from "./object-index.ts";

const slice = (version: number, nodes: readonly string[]): KubeObject => ({ apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { namespace: "ns", name: "web", resourceVersion: String(version) }, endpoints: nodes.map((nodeName) => ({ nodeName })) }) as KubeObject;

function versions(index: ObjectIndex, value: string): string[] {
  return index.get(value).map((o) => o.metadata.resourceVersion ?? "");
}

test("an object is filed under each of its values, moves with them, and leaves on delete", () => {
  const index = new ObjectIndex((object) => valuesAt(object, "endpoints[].nodeName"));
  index.update("ns/web", slice(1, ["n1", "n2", "n1"]));
  assert.deepEqual(versions(index, "n1"), ["1"], "filed once under a repeated value");
  assert.deepEqual(versions(index, "n2"), ["1"]);
  index.update("ns/web", slice(2, ["n2", "n3"]));
  assert.deepEqual(versions(index, "n1"), []);
  assert.deepEqual(versions(index, "n2"), ["2"], "the bucket holds the newest state");
  assert.deepEqual(versions(index, "n3"), ["2"]);
  index.update("ns/web", slice(3, []));
  assert.deepEqual([versions(index, "n2"), versions(index, "n3")], [[], []]);
  index.update("ns/web", slice(4, ["n1"]));
  index.update("ns/web", undefined);
  assert.deepEqual(versions(index, "n1"), []);
});

test("objects sharing a value are kept apart by key", () => {
  const index = new ObjectIndex((object) => valuesAt(object, "spec.nodeName"));
  const pod = (name: string, nodeName: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name }, spec: { nodeName } }) as KubeObject;
  index.update("ns/a", pod("a", "n1"));
  index.update("ns/b", pod("b", "n1"));
  index.update("ns/a", pod("a", "n2"));
  assert.deepEqual(index.get("n1").map((o) => o.metadata.name), ["b"]);
  assert.deepEqual(index.get("n2").map((o) => o.metadata.name), ["a"]);
});
