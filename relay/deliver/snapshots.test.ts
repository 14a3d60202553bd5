import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerManifest, type KubeObject } from "../../protocol/index.ts";
import { dirtyKeys } from "./snapshots.ts";

const NODE = { apiVersion: "v1", kind: "Node" };
test("a child whose label moved it to another parent makes both parents dirty; an unmoved one only its own", () => {
  const route = { watch: { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "label" as const, label: "job" } }, parentNamespaced: true, parents: () => [] };
  const pod = (job: string, rv: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name: "p", uid: "u-p", resourceVersion: rv, labels: { job } } });
  assert.deepEqual(dirtyKeys(route, pod("b", "2"), pod("a", "1")), ["ns/b", "ns/a"]);
  assert.deepEqual(dirtyKeys(route, pod("a", "2"), pod("a", "1")), ["ns/a"]);
  assert.deepEqual(dirtyKeys(route, pod("a", "2")), ["ns/a"]);
});

test("a deletion marks its parent dirty at once, unless its watch batches deletions too", async () => {
  const { SnapshotDelivery } = await import("./snapshots.ts");
  const calls: [string, number][] = [];
  const queue = { addBatched: (key: string, _trigger: unknown, ms: number) => void calls.push([key, ms]) } as unknown as ConstructorParameters<typeof SnapshotDelivery>[0];
  const informers = { forWatch: () => undefined, unfiltered: () => undefined } as unknown as ConstructorParameters<typeof SnapshotDelivery>[1];
  const delivery = new SnapshotDelivery(queue, informers, {} as ConstructorParameters<typeof SnapshotDelivery>[2]);
  const podWatch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "field" as const, path: "spec.nodeName" }, batchMilliseconds: 500 };
  const nodes = ControllerManifest.parse({ name: "nodes", delivery: "snapshot", parent: NODE, watches: [{ ...NODE, resource: "nodes", namespaced: false, mapping: { by: "self" } }, podWatch] });
  const pod: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name: "p", uid: "u" }, spec: { nodeName: "edge1" } } as KubeObject;
  const at = (watch: typeof podWatch & { batchDeletions?: boolean }): void => {
    delivery.enqueue(delivery.route({ ...nodes, watches: [nodes.watches[0] as never, watch] }, watch), { type: "DELETED", kind: "Pod.v1", object: pod });
    delivery.enqueue(delivery.route({ ...nodes, watches: [nodes.watches[0] as never, watch] }, watch), { type: "MODIFIED", kind: "Pod.v1", object: pod });
  };
  at(podWatch);
  at({ ...podWatch, batchDeletions: true });
  assert.deepEqual(calls.map(([, ms]) => ms), [0, 500, 500, 500]);
  assert.equal(new Set(calls.map(([key]) => key)).size, 1, "all of node edge1");
  assert.ok(calls[0]?.[0].endsWith("edge1"));
});
