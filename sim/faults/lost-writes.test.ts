import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { SimFaults } from "./faults.ts";
import { WriteRecorder } from "./lost-writes.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const pod = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } }) as KubeObject;
const names = async (cluster: SimCluster): Promise<string[]> => (await cluster.list(POD, { namespace: "default" })).items.map((p) => p.metadata.name ?? "").sort();
const nodeOf = async (cluster: SimCluster, name: string): Promise<unknown> => ((await cluster.get(POD, "default", name)) as { spec?: { nodeName?: string } }).spec?.nodeName;

test("a rewind undoes the commits of the last window, newest first: creates gone, binds undone, deletes undone", async () => {
  const cluster = new SimCluster();
  let now = 0;
  const recorder = new WriteRecorder(cluster.store, () => now);
  recorder.record(5_000);
  await cluster.create(pod("kept"));
  await cluster.create(pod("doomed"));
  now = 10_000; // the two creates are older than the window: kept
  await cluster.create(pod("lost"));
  await cluster.bind("default", "kept", "node-1");
  await cluster.delete(POD, "default", "doomed", { gracePeriodSeconds: 0 });
  assert.deepEqual(await names(cluster), ["kept", "lost"]);
  const lost = recorder.rewind(1_000);
  assert.deepEqual({ creates: lost.creates, binds: lost.binds, updates: lost.updates, deletes: lost.deletes }, { creates: 1, binds: 1, updates: 0, deletes: 1 });
  assert.deepEqual(lost.byResource, { "/pods": 3 });
  assert.deepEqual(await names(cluster), ["doomed", "kept"], "the create is lost, the delete undone");
  assert.equal(await nodeOf(cluster, "kept"), undefined, "the bind is lost");
  assert.deepEqual(recorder.rewind(1_000).examples, [], "what was undone is not undone twice");
});

test("lost writes through the faults: only while recording; the history is compacted so watches from before relist", async () => {
  const cluster = new SimCluster();
  const faults = new SimFaults();
  faults.attachStore(cluster.store);
  assert.throws(() => faults.loseWrites(1_000), /recordWrites/);
  faults.recordWrites(10_000);
  const before = cluster.store.resourceVersion;
  await cluster.create(pod("acknowledged"));
  const lost = faults.loseWrites(10_000);
  assert.equal(lost.creates, 1);
  assert.deepEqual(await names(cluster), []);
  assert.equal(cluster.store.history.since(before), "gone", "a watch from before the restart gets 410 and relists");
  faults.clear();
  await cluster.create(pod("after"));
  assert.throws(() => faults.loseWrites(1_000), /recordWrites/, "clear stops recording");
});
