import assert from "node:assert/strict";
import { test } from "node:test";
import type { ControllerManifest, EventBatch, KubeObject, Plan, Watch, WatchEvent } from "../../protocol/index.ts";
import type { QueueKey } from "../queue/key.ts";
import type { KeySink } from "../queue/workqueue.ts";
import type { Caches } from "../store/caches.ts";
import { DeliveredCuts } from "../store/delivered-cuts.ts";
import { BATCH_EVENTS, EventsDelivery, takeBatch } from "./events.ts";
import type { QueuedTrigger } from "./triggers.ts";

const POD_WATCH: Watch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "self" } };
const controller: ControllerManifest = { name: "gang", delivery: "events", related: [], watches: [POD_WATCH], webhooks: [], apis: [], channels: [], permissions: [] };
const pod = (name: string, padding = ""): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", annotations: { padding } } });

/** A delivery over a cache of `pods`, a queue that counts adds and a Worker that records batches (failing when told). */
function delivery(pods: KubeObject[]): { events: EventsDelivery; sent: EventBatch[]; adds: () => number; batches: number[]; failNext: () => void } {
  const sent: EventBatch[] = [];
  const batches: number[] = [];
  let added = 0;
  let fail = false;
  const caches = { forWatch: () => ({ list: () => pods }) } as unknown as Caches;
  const queue: KeySink<QueueKey, QueuedTrigger> = {
    add: () => void (added += 1),
    addBatched: (_key, _trigger, ms) => {
      added += 1;
      batches.push(ms);
    },
  };
  const worker = {
    events: (_name: string, batch: EventBatch): Promise<Plan> => {
      if (fail) {
        fail = false;
        return Promise.reject(new Error("worker unreachable"));
      }
      sent.push(batch);
      return Promise.resolve({ actions: [] });
    },
  };
  return { events: new EventsDelivery(queue, caches, worker, new DeliveredCuts()), sent, adds: () => added, batches, failNext: () => void (fail = true) };
}

test("a batch stays within the bytes and events bounds, and holds at least one event", () => {
  const events: WatchEvent[] = ["a", "b", "c"].map((name) => ({ type: "ADDED", kind: "Pod.v1", object: pod(name, "x".repeat(1000)), initial: false }));
  assert.equal(takeBatch(events, undefined, 2_500).length, 2);
  assert.equal(takeBatch(events, undefined, 10).length, 1, "one object over the bound still goes, alone");
  assert.equal(takeBatch(events, undefined, 1_000_000, 2).length, 2);
  assert.equal(takeBatch([], undefined, 10).length, 0);
});

test("a relist bigger than a batch goes in chunks: the first marked relist, all but the last partialList, new events after it", async () => {
  const pods = Array.from({ length: BATCH_EVENTS + 10 }, (_, i) => pod(`p${i}`));
  const { events, sent, adds } = delivery(pods);
  events.relist(controller);
  events.buffer(controller, { type: "MODIFIED", kind: "Pod.v1", object: pod("p0"), initial: false });
  await events.send(controller);
  assert.equal(adds(), 3, "queued by relist and buffer, and again for what is left");
  await events.send(controller);
  assert.deepEqual(sent.map((b) => [b.relist, b.partialList, b.events.length]), [[true, true, BATCH_EVENTS], [false, false, 11]]);
  assert.equal(sent[1]?.events.at(-1)?.type, "MODIFIED", "the event that came during the relist follows it");
});

test("a batch the Worker did not take goes back in front, still marked as it was", async () => {
  const pods = Array.from({ length: BATCH_EVENTS + 1 }, (_, i) => pod(`p${i}`));
  const { events, sent, failNext } = delivery(pods);
  events.relist(controller);
  failNext();
  await assert.rejects(events.send(controller));
  await events.send(controller);
  await events.send(controller);
  assert.deepEqual(sent.map((b) => [b.relist, b.partialList, b.events.length]), [[true, true, BATCH_EVENTS], [false, false, 1]]);
});

test("nothing is buffered before the controller's first relist (a standby keeps no growing buffer); the relist covers it", async () => {
  const { events, sent, adds } = delivery([pod("p0")]);
  events.buffer(controller, { type: "MODIFIED", kind: "Pod.v1", object: pod("p0"), initial: true });
  assert.equal(adds(), 0, "not queued");
  events.relist(controller);
  await events.send(controller);
  assert.deepEqual(sent.map((b) => [b.relist, b.partialList, b.events.map((e) => e.type)]), [[true, false, ["ADDED"]]]);
});

test("a batch carries each object cut to the fields the controller's watches of its kind declare; the buffer keeps them whole", async () => {
  const projecting: ControllerManifest = { ...controller, name: "projecting", watches: [{ ...POD_WATCH, fields: ["metadata.labels"] }] };
  const labelled: KubeObject = { ...pod("p", "x".repeat(500)), metadata: { ...pod("p", "x".repeat(500)).metadata, labels: { group: "g" } } };
  const { events, sent, failNext } = delivery([labelled]);
  events.relist(projecting);
  failNext();
  await assert.rejects(events.send(projecting));
  await events.send(projecting);
  assert.deepEqual(sent[0]?.events[0]?.object, { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", labels: { group: "g" } } }, "no annotations: not declared");
  const sizes = takeBatch([{ type: "ADDED", kind: "Pod.v1", object: labelled, initial: false }, { type: "ADDED", kind: "Pod.v1", object: labelled, initial: false }], (e) => ({ ...e, object: { ...e.object, metadata: { name: "p" } } }), 200);
  assert.equal(sizes.length, 2, "the bytes bound counts the objects as projected");
});

test("an event waits out its watch's batch period in the queue: a replacement's deletion, creation and start go as one batch", async () => {
  const { events, sent, batches } = delivery([]);
  events.relist(controller);
  await events.send(controller);
  for (const type of ["DELETED", "ADDED", "MODIFIED"] as const) assert.equal(events.buffer(controller, { type, kind: "Pod.v1", object: pod("p0"), initial: false }, { batchMilliseconds: 100 }), true);
  assert.deepEqual(batches, [100, 100, 100], "each event asks the queue for the key after the period (the queue keeps the first due time)");
  await events.send(controller);
  assert.deepEqual(sent.at(-1)?.events.map((e) => e.type), ["DELETED", "ADDED", "MODIFIED"]);
});

test("a change of none of the declared fields is not sent (only the resourceVersion or an undeclared field changed); a declared field's change is; a watch of whole objects gets every change", async () => {
  const projecting: ControllerManifest = { ...controller, name: "projecting", watches: [{ ...POD_WATCH, fields: ["spec.nodeName"] }] };
  const at = (resourceVersion: string, nodeName: string, ip: string): KubeObject => ({ ...pod("p0"), metadata: { ...pod("p0").metadata, resourceVersion }, spec: { nodeName }, status: { podIP: ip } });
  const { events, sent, adds } = delivery([]);
  events.relist(projecting);
  events.relist(controller);
  await events.send(projecting);
  await events.send(controller);
  const before = adds();
  assert.equal(events.buffer(projecting, { type: "MODIFIED", kind: "Pod.v1", object: at("2", "n1", "10.0.0.2"), initial: false }, { previous: at("1", "n1", "10.0.0.1") }), false, "the IP is not declared");
  assert.equal(adds(), before, "nothing queued");
  assert.equal(events.buffer(projecting, { type: "MODIFIED", kind: "Pod.v1", object: at("3", "n2", "10.0.0.2"), initial: false }, { previous: at("2", "n1", "10.0.0.2") }), true, "the node is");
  assert.equal(events.buffer(projecting, { type: "MODIFIED", kind: "Pod.v1", object: at("4", "n2", "10.0.0.2"), initial: false }), true, "without the previous state nothing is known to be unchanged");
  assert.equal(events.buffer(controller, { type: "MODIFIED", kind: "Pod.v1", object: at("5", "n2", "10.0.0.3"), initial: false }, { previous: at("4", "n2", "10.0.0.2") }), true, "a watch of whole objects reads every field");
  await events.send(projecting);
  assert.deepEqual(sent.at(-1)?.events.map((e) => e.object.metadata.resourceVersion), ["3", "4"]);
});

