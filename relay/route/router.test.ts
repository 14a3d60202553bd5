import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerManifest, Manifest, type KubeObject, type WatchEvent } from "../../protocol/index.ts";
import type { EventSink } from "../deliver/events.ts";
import type { QueuedTrigger } from "../deliver/triggers.ts";
import { Metrics } from "../ops/metrics.ts";
import type { QueueKey } from "../queue/key.ts";
import type { KeySink } from "../queue/workqueue.ts";
import { cacheId, type Cache } from "../store/cache.ts";
import { OwnStatusWrites } from "./echoes.ts";
import { EventRouter } from "./router.ts";

const NODE = { apiVersion: "v1", kind: "Node" };
const POD = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true };
const nodeWatch = { ...NODE, resource: "nodes", namespaced: false, mapping: { by: "self" } };
const podWatch = { ...POD, mapping: { by: "field", path: "spec.nodeName" }, batchMilliseconds: 500 };
const nodes = ControllerManifest.parse({ name: "nodes", delivery: "snapshot", parent: NODE, watches: [nodeWatch, podWatch] });
const gang = ControllerManifest.parse({ name: "gang", delivery: "events", watches: [{ ...POD, labelSelector: "gang=yes", mapping: { by: "none" } }] });
const manifest = Manifest.parse({ version: "v1", controllers: [nodes, gang] });

const pod = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace: "ns", name, uid: `u-${name}`, labels }, spec: { nodeName: "edge1" } }) as KubeObject;
const node = (rv: string, status: object): KubeObject => ({ ...NODE, metadata: { name: "edge1", uid: "u-edge1", resourceVersion: rv }, status }) as KubeObject;

/** A cache as the router reads it: its id and watch. */
const cacheOf = (watch: { apiVersion: string; kind: string; labelSelector?: string }): Cache => ({ id: cacheId(watch), watch }) as unknown as Cache;
const pods = cacheOf(POD);
const nodeCache = cacheOf(NODE);

/** A router over a queue and an events sink that record what they are given. */
function router(cached: KubeObject[] = []): { router: EventRouter; keys: [string, string, number][]; added: string[]; events: string[]; relisted: string[]; echoes: OwnStatusWrites; metrics: Metrics } {
  const keys: [string, string, number][] = [];
  const added: string[] = [];
  const events: string[] = [];
  const relisted: string[] = [];
  const queue: KeySink<QueueKey, QueuedTrigger> = {
    add: (key) => void added.push(key.id),
    addBatched: (key, trigger, ms) => void keys.push([key.id, trigger?.type ?? "", ms]),
  };
  const sink: EventSink = {
    buffer: (controller, event: WatchEvent, options) => {
      events.push(`${controller.name} ${event.type} ${event.object.metadata.name ?? ""}${options?.batchMilliseconds ? ` after ${options.batchMilliseconds} ms` : ""}`);
      return true;
    },
    relist: (controller) => void relisted.push(controller.name),
  };
  const echoes = new OwnStatusWrites();
  const metrics = new Metrics();
  const routed = new EventRouter({ caches: { forWatch: () => ({ list: () => cached, withField: () => [] }) as never }, keys: queue, events: sink, echoes, metrics });
  routed.use(manifest);
  return { router: routed, keys, added, events, relisted, echoes, metrics };
}

test("a deletion marks its parent dirty at once, unless its watch batches deletions too; other changes wait out the batch", () => {
  const { router: routed, keys } = router();
  routed.deleted(pods, pod("p"), false);
  routed.modified(pods, pod("p"), undefined, false);
  assert.deepEqual(keys, [
    ["nodes|edge1", "DELETED", 0],
    ["nodes|edge1", "MODIFIED", 500],
  ]);
  const batching = router();
  batching.router.use(Manifest.parse({ version: "v1", controllers: [{ ...nodes, watches: [nodeWatch, { ...podWatch, batchDeletions: true }] }] }));
  batching.router.deleted(pods, pod("p"), false);
  assert.deepEqual(batching.keys, [["nodes|edge1", "DELETED", 500]]);
});

test("a queued change carries the object as the cache holds it, with the watch and the cache it came through", () => {
  const triggers: QueuedTrigger[] = [];
  const routed = new EventRouter({ caches: { forWatch: () => undefined }, keys: { add: () => undefined, addBatched: (_key, trigger) => void (trigger && triggers.push(trigger)) }, events: { buffer: () => true, relist: () => undefined }, echoes: new OwnStatusWrites(), metrics: new Metrics() });
  routed.use(manifest);
  const deleted = pod("p");
  routed.deleted(pods, deleted, false);
  assert.equal(triggers[0]?.object, deleted, "not cut here: a deletion is cut once, when sent");
  assert.equal(triggers[0]?.cache, pods);
  assert.equal(triggers[0]?.watch, manifest.controllers[0]?.watches[1]);
});

test("the echo of a status write of the relay's own reconcile on a parent marks nothing, and is counted; another change of the parent does", async () => {
  const { router: routed, keys, echoes, metrics } = router();
  const write = { type: "status", target: { ...NODE, name: "edge1" }, status: {} } as const;
  const reconcile = { controller: "nodes", key: "edge1" };
  echoes.sending(write, reconcile);
  echoes.settled(write, node("2", { ready: true }), reconcile);
  routed.modified(nodeCache, node("2", { ready: true }), node("1", {}), false);
  assert.deepEqual(keys, []);
  assert.match(await metrics.render(), /^edgeloop_status_echoes_ignored_total\{controller="nodes"\} 1$/m);
  routed.modified(nodeCache, node("3", { ready: false }), node("2", { ready: true }), false);
  assert.deepEqual(keys, [["nodes|edge1", "MODIFIED", 0]]);
});

test("an events controller is buffered only what its label selector selects, and every event is counted by kind and type", async () => {
  const { router: routed, events, metrics } = router();
  routed.added(pods, pod("in", { gang: "yes" }), true);
  routed.added(pods, pod("out"), true);
  routed.modified(pods, pod("out"), undefined, false);
  assert.deepEqual(events, ["gang ADDED in"]);
  assert.match(await metrics.render(), /^edgeloop_watch_events_total\{kind="Pod",type="ADDED"\} 2$/m);
});

test("an events controller's event waits out its watch's batch period (deletions too only when the watch says so); one that tells it nothing is counted", async () => {
  const { router: routed, events, metrics } = router();
  const batching = ControllerManifest.parse({ ...gang, watches: [{ ...POD, labelSelector: "gang=yes", mapping: { by: "none" }, batchMilliseconds: 100 }] });
  routed.use(Manifest.parse({ version: "v1", controllers: [nodes, batching] }));
  routed.added(pods, pod("in", { gang: "yes" }), false);
  routed.deleted(pods, pod("in", { gang: "yes" }), false);
  assert.deepEqual(events, ["gang ADDED in after 100 ms", "gang DELETED in"]);
  const dropping = new EventRouter({ caches: { forWatch: () => undefined } as never, keys: { add: () => undefined, addBatched: () => undefined }, events: { buffer: () => false, relist: () => undefined }, echoes: new OwnStatusWrites(), metrics });
  dropping.use(manifest);
  dropping.modified(pods, pod("in", { gang: "yes" }), pod("in", { gang: "yes" }), false);
  assert.match(await metrics.render(), /^edgeloop_watch_events_unchanged_total\{controller="gang"\} 1$/m);
});

test("a snapshot watch's change of none of its declared fields marks nothing and is counted; a change of one, or of a label, marks its parent", async () => {
  const { router: routed, keys, metrics } = router();
  const heartbeat = (rv: string, beat: string, status = "True", labels: Record<string, string> = {}): KubeObject =>
    ({ ...NODE, metadata: { name: "edge1", uid: "u-edge1", resourceVersion: rv, labels }, status: { conditions: [{ type: "Ready", status, lastHeartbeatTime: beat }] } }) as KubeObject;
  const fielded = ControllerManifest.parse({ ...nodes, watches: [{ ...nodeWatch, fields: ["status.conditions[].type", "status.conditions[].status"] }, podWatch] });
  routed.use(Manifest.parse({ version: "v1", controllers: [fielded] }));
  routed.modified(nodeCache, heartbeat("2", "t2"), heartbeat("1", "t1"), false);
  assert.deepEqual(keys, [], "a heartbeat changes no declared field");
  assert.match(await metrics.render(), /^edgeloop_watch_events_unchanged_total\{controller="nodes"\} 1$/m);
  routed.modified(nodeCache, heartbeat("3", "t3", "Unknown"), heartbeat("2", "t2"), false);
  routed.modified(nodeCache, heartbeat("4", "t3", "Unknown", { pool: "a" }), heartbeat("3", "t3", "Unknown"), false);
  assert.deepEqual(keys, [
    ["nodes|edge1", "MODIFIED", 0],
    ["nodes|edge1", "MODIFIED", 0],
  ]);
  // A watch that declares no fields reads the whole object: every change marks.
  const whole = router();
  whole.router.modified(nodeCache, heartbeat("2", "t2"), heartbeat("1", "t1"), false);
  assert.deepEqual(whole.keys, [["nodes|edge1", "MODIFIED", 0]]);
});

test("a resync marks every parent of a snapshot controller dirty at once and relists every events controller", () => {
  const { router: routed, added, relisted } = router([node("1", {}), { ...NODE, metadata: { name: "edge2" } } as KubeObject]);
  routed.resync();
  assert.deepEqual(added, ["nodes|edge1", "nodes|edge2"]);
  assert.deepEqual(relisted, ["gang"]);
});
