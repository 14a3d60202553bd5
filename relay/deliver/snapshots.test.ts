import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerManifest, type KubeObject, type ReconcileRequest, type Watch } from "../../protocol/index.ts";
import type { SnapshotCaches } from "../../protocol/snapshot/caches.ts";
import { FakeCache } from "../../test/support/fake-cache.ts";
import type { Cache } from "../store/cache.ts";
import { DeliveredCuts } from "../store/delivered-cuts.ts";
import { parentRef, SnapshotDelivery } from "./snapshots.ts";
import type { QueuedTrigger } from "./triggers.ts";

const NODE = { apiVersion: "v1", kind: "Node" };
const podWatch: Watch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "field", path: "spec.nodeName" }, fields: ["status.phase"] };
const nodes = ControllerManifest.parse({ name: "nodes", delivery: "snapshot", parent: NODE, watches: [{ ...NODE, resource: "nodes", namespaced: false, mapping: { by: "self" } }, podWatch] });
const node: KubeObject = { ...NODE, metadata: { name: "edge1", uid: "u-edge1" } };
const pod = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name, uid: `u-${name}` }, spec: { nodeName: "edge1", containers: [{ name: "c", image: "i" }] }, status: { phase: "Running" } }) as KubeObject;

test("a parent's reference: the cached object's, with its uid; else named from the key, so a parent that is gone still gets its Warning Events", () => {
  assert.deepEqual(parentRef(nodes, "edge1", node), { ...NODE, name: "edge1", uid: "u-edge1" });
  assert.deepEqual(parentRef(nodes, "edge1", null), { ...NODE, name: "edge1" });
  const namespaced = ControllerManifest.parse({ name: "jobs", delivery: "snapshot", parent: { apiVersion: "batch/v1", kind: "Job" }, watches: [] });
  assert.deepEqual(parentRef(namespaced, "ns/j", null), { apiVersion: "batch/v1", kind: "Job", namespace: "ns", name: "j" });
  assert.equal(parentRef({ ...namespaced, parent: undefined }, "ns/j", null), undefined, "no parent kind: nothing to name");
});

test("a snapshot is sent with its triggers compacted, a deletion cut to its watch's fields, and names its parent", async () => {
  const nodeCache = new FakeCache(false, { objects: [node] });
  const podCache = new FakeCache(true, { fieldPaths: ["spec.nodeName"], objects: [pod("live")] });
  const caches: SnapshotCaches = { forWatch: (watch) => (watch.kind === "Node" ? nodeCache : podCache), unfiltered: () => undefined };
  let sent: ReconcileRequest | undefined;
  const worker = {
    reconcile: async (_controller: string, body: unknown): Promise<{ actions: [] }> => {
      sent = (typeof body === "function" ? (body as () => ReconcileRequest)() : body) as ReconcileRequest;
      return { actions: [] };
    },
  };
  const keptWhole = { trimmed: () => false } as unknown as Cache;
  const deleted: QueuedTrigger = { type: "DELETED", kind: "Pod.v1", object: pod("gone"), watch: podWatch, cache: keptWhole };
  const changed: QueuedTrigger = { type: "MODIFIED", kind: "Pod.v1", object: pod("live"), watch: podWatch, cache: keptWhole };
  const delivered = await new SnapshotDelivery(caches, worker, new DeliveredCuts()).send(nodes, "edge1", [changed, deleted, changed]);
  assert.deepEqual(delivered.parent, { ...NODE, name: "edge1", uid: "u-edge1" });
  assert.deepEqual(
    sent?.triggers.map((t) => [t.type, t.object.metadata.name, "spec" in t.object ? "with spec" : "without spec"]),
    [
      ["DELETED", "gone", "with spec"],
      ["MODIFIED", "live", "without spec"],
    ],
  );
  assert.deepEqual(sent?.triggers[0]?.object, { apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name: "gone", uid: "u-gone" }, spec: { nodeName: "edge1" }, status: { phase: "Running" } }, "the deletion: the watch's fields, its field mapping's path, what identifies it");
  assert.deepEqual((sent?.children["Pod.v1"] ?? []).map((p) => p.metadata.name), ["live"]);
});
