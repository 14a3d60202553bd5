import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { EventBatch, KubeObject, WatchEvent } from "../../../../protocol/index.ts";
import { feedFrames, kindKey } from "../../../../protocol/index.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";
import { MAX_INSERT_FRAME_CHARS, SednaEdgeLogic } from "./logic.ts";
import { dataset, flJob, lcFrame, model, workerPod } from "./core/testing/objects.ts";

const NOW = "2026-11-27T12:00:00Z";

function logic(): SednaEdgeLogic {
  return new SednaEdgeLogic(new SqliteSql(new DatabaseSync(":memory:")));
}

function event(type: WatchEvent["type"], object: KubeObject, initial = false): WatchEvent {
  return { type, kind: kindKey(object), object, initial };
}

function batch(events: readonly WatchEvent[], flags: Partial<Pick<EventBatch, "relist" | "partialList">> = {}): EventBatch {
  return { controller: "sedna-edge", relist: false, partialList: false, ...flags, events: [...events], now: NOW };
}

/** The frames queued after `cursor`, as `peer operation kind/name`. */
function queued(edge: SednaEdgeLogic, cursor = "0"): string[] {
  return feedFrames(edge.frames(cursor)).map((frame) => {
    const { header } = JSON.parse(frame.data) as { header: { resourceKind: string; resourceName: string; operation: string } };
    return `${frame.peer} ${header.operation} ${header.resourceKind}/${header.resourceName}`;
  });
}

/** Everything queued so far, acknowledged; answers the new cursor. */
function drain(edge: SednaEdgeLogic): string {
  let cursor = "0";
  for (;;) {
    const page = edge.feed({ cursor, delivered: [] });
    if (page.frames.length === 0) return page.cursor;
    cursor = page.cursor;
  }
}

const job = flJob("fl", ["edge-1"], "global-model");
const world = [job, model("global-model"), dataset("d1", "edge-2"), workerPod(job, "train", "fl-train-0", "edge-1")];

test("a relist's partial batches queue nothing; its last sends each object to the nodes that hold it", () => {
  const edge = logic();
  assert.equal(edge.apply(batch(world.slice(0, 2).map((o) => event("ADDED", o, true)), { relist: true, partialList: true })), 0);
  assert.deepEqual(queued(edge), []);
  edge.apply(batch(world.slice(2).map((o) => event("ADDED", o, true)), { partialList: false }));
  assert.deepEqual(queued(edge).sort(), ["edge-1 insert federatedlearningjob/fl", "edge-1 insert model/global-model", "edge-2 insert dataset/d1"]);
});

test("a spec change is sent again to the job's nodes; a status write or resourceVersion bump is not", () => {
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  const cursor = drain(edge);
  edge.apply(batch([event("MODIFIED", { ...job, metadata: { ...job.metadata, resourceVersion: "8" }, status: { phase: "Running" } })]));
  assert.deepEqual(queued(edge, cursor), []);
  const changed = { ...job, spec: { ...(job["spec"] as object), transmitter: { ws: {} } } };
  edge.apply(batch([event("MODIFIED", changed)]));
  assert.deepEqual(queued(edge, cursor), ["edge-1 insert federatedlearningjob/fl"]);
});

test("a training pod bound to another node brings the job and its model there; its deletion takes them back", () => {
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  let cursor = drain(edge);
  const moved = workerPod(job, "train", "fl-train-1", "edge-3");
  edge.apply(batch([event("ADDED", moved)]));
  assert.deepEqual(queued(edge, cursor), ["edge-3 insert federatedlearningjob/fl", "edge-3 insert model/global-model"]);
  cursor = drain(edge);
  edge.apply(batch([event("DELETED", moved)]));
  assert.deepEqual(queued(edge, cursor), ["edge-3 delete federatedlearningjob/fl", "edge-3 delete model/global-model"]);
});

test("a pod event that changes nothing the targets read (its phase) queues nothing", () => {
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  const cursor = drain(edge);
  const running = { ...workerPod(job, "train", "fl-train-0", "edge-1"), status: { phase: "Running" } };
  assert.equal(edge.apply(batch([event("MODIFIED", running)])), 0);
  assert.deepEqual(queued(edge, cursor), []);
});

test("a deleted object is deleted from its nodes; a reconnecting node is sent its state and the deletes it may have missed", () => {
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  const cursor = drain(edge);
  edge.apply(batch([event("DELETED", dataset("d1", "edge-2"))]));
  assert.deepEqual(queued(edge, cursor), ["edge-2 delete dataset/d1"]);
  const { from } = edge.connect("edge-1");
  assert.deepEqual(queued(edge, String(Number(from) - 1)), ["edge-1 insert federatedlearningjob/fl", "edge-1 insert model/global-model"]);
  edge.connect("edge-2");
  assert.deepEqual(queued(edge, cursor).filter((f) => f.startsWith("edge-2")), ["edge-2 delete dataset/d1"], "the delete was never confirmed written: sent again, once");
});

test("a relist that no longer lists an object deletes it from its nodes", () => {
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  const cursor = drain(edge);
  edge.apply(batch(world.filter((o) => o.kind !== "Dataset").map((o) => event("ADDED", o, true)), { relist: true }));
  assert.deepEqual(queued(edge, cursor), ["edge-2 delete dataset/d1"]);
});

test("a status report is accepted only from a node the object was sent to", () => {
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  const report = lcFrame("dataset", "d1", "status", { numberOfSamples: 3 });
  const accepted = edge.receive({ id: "1", peer: "edge-2", data: report, now: NOW });
  assert.equal(accepted.accepted, true);
  assert.deepEqual(accepted.actions.map((a) => a.type), ["status"]);
  const refused = edge.receive({ id: "2", peer: "edge-1", data: report, now: NOW });
  assert.deepEqual([refused.accepted, refused.reason, refused.actions.map((a) => a.type)], [false, "not-sent-to-peer", ["event"]]);
});

test("a refusal repeated by a node records its Warning Event once a minute, not once a frame", () => {
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  const report = lcFrame("dataset", "d1", "status", { numberOfSamples: 3 });
  const at = (seconds: number): string => new Date(Date.parse(NOW) + seconds * 1000).toISOString();
  const events = [0, 10, 59, 61].map((s) => edge.receive({ id: String(s), peer: "edge-1", data: report, now: at(s) })).map((r) => [r.reason, r.actions.length]);
  assert.deepEqual(events, [["not-sent-to-peer", 1], ["not-sent-to-peer", 0], ["not-sent-to-peer", 0], ["not-sent-to-peer", 1]]);
  assert.equal(edge.receive({ id: "x", peer: "edge-3", data: report, now: at(62) }).actions.length, 1, "another node's refusal is its own");
});

test("an object too large to store as a frame is held nowhere: its nodes are sent its delete, nothing half-sent", (t) => {
  const warn = t.mock.method(console, "warn", () => undefined);
  const edge = logic();
  edge.apply(batch(world.map((o) => event("ADDED", o, true)), { relist: true }));
  const cursor = drain(edge);
  const huge = { ...dataset("d1", "edge-2"), metadata: { ...dataset("d1", "edge-2").metadata, annotations: { big: "x".repeat(MAX_INSERT_FRAME_CHARS) } } };
  edge.apply(batch([event("MODIFIED", huge)]));
  assert.deepEqual(queued(edge, cursor), ["edge-2 delete dataset/d1"]);
  assert.equal(warn.mock.callCount(), 1);
  assert.match(String(warn.mock.calls[0]?.arguments[0]), /dataset\/default\/d1 is not sent to edge-2/);
});
