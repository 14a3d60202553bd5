/**
 * The Sedna edge channel's Durable Object in real workerd: watch events reach it through
 * the Worker's events route (the `sedna-edge` controller), a connecting node is queued its
 * state, a parked feed read wakes on the next frame, a status report from the node becomes
 * a status write, and the holds survive a restart of workerd (the state machine itself is
 * tested in Node, `functions/controllers/sedna/edge/`); and the same through the Worker's
 * `sedna-gm` channel routes, as the relay calls them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { SEDNA_EDGE, SEDNA_EDGE_OBJECT_NAME } from "../../functions/controllers/sedna/edge/bindings.ts";
import { dataset, flJob, LC_HELLO, lcFrame, model, workerPod } from "../../functions/controllers/sedna/edge/core/testing/objects.ts";
import { feedFrames, kindKey, type ChannelFeed, type KubeObject } from "../../protocol/index.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { SECRET, signed } from "./client.ts";

let worker: RunningWorker;
let persistDir: string;
before(async () => {
  persistDir = mkdtempSync(join(tmpdir(), "edgeloop-sedna-edge-"));
  worker = await startWorker({ secret: SECRET, persistDir });
});
after(async () => {
  await worker.stop();
  rmSync(persistDir, { recursive: true, force: true });
});

/** Posts watch events to the controller's events route, as the relay does. */
async function post(objects: readonly KubeObject[], type: "ADDED" | "MODIFIED" | "DELETED", relist = false): Promise<void> {
  const events = objects.map((object) => ({ type, kind: kindKey(object), object, initial: relist }));
  const response = await signed(`${worker.url}/v1/events/sedna-edge`, { body: { controller: "sedna-edge", relist, partialList: false, events, now: new Date().toISOString() } });
  assert.equal(response.status, 200, await response.clone().text());
  assert.deepEqual(await response.json(), { actions: [] });
}

/** `peer operation kind/name` of each frame. */
function described(feed: ChannelFeed): string[] {
  return feedFrames(feed).map((frame) => {
    const { header } = JSON.parse(frame.data) as { header: { resourceKind: string; resourceName: string; operation: string } };
    return `${frame.peer} ${header.operation} ${header.resourceKind}/${header.resourceName}`;
  });
}

const job = flJob("fl", ["edge-1"]);

test("events in, frames out to the job's nodes; a node's connect queues its state; a parked read wakes on the next frame; a report becomes a status write", async () => {
  await post([job, model("global-model"), dataset("d1", "edge-1"), workerPod(job, "train", "fl-train-0", "edge-1")], "ADDED", true);
  const edge = await worker.durableObject(SEDNA_EDGE, SEDNA_EDGE_OBJECT_NAME);
  const first = await edge.feed({ cursor: "0", waitSeconds: 0, delivered: [] });
  assert.deepEqual(described(first).sort(), ["edge-1 insert dataset/d1", "edge-1 insert federatedlearningjob/fl", "edge-1 insert model/global-model"]);

  const { from } = await edge.connectPeer({ peer: "edge-1", now: new Date().toISOString() });
  const state = await edge.feed({ cursor: first.cursor, waitSeconds: 0, delivered: [] });
  assert.equal(state.frames[0]?.seq, from);
  assert.deepEqual(described(state).sort(), ["edge-1 insert dataset/d1", "edge-1 insert federatedlearningjob/fl", "edge-1 insert model/global-model"]);

  const started = Date.now();
  const parked = edge.feed({ cursor: state.cursor, waitSeconds: 20, delivered: [] });
  await post([workerPod(job, "train", "fl-train-1", "edge-2")], "ADDED");
  const woken = await parked;
  assert.deepEqual(described(woken), ["edge-2 insert federatedlearningjob/fl", "edge-2 insert model/global-model"]);
  assert.ok(Date.now() - started < 10_000, `woken by the frame, not by the end of the wait (${Date.now() - started} ms)`);

  const reply = await edge.receive({ id: "r1", peer: "edge-1", data: lcFrame("dataset", "d1", "status", { numberOfSamples: 42 }), now: "2026-11-27T12:00:00Z" });
  assert.deepEqual(JSON.parse(JSON.stringify(reply)), {
    accepted: true,
    actions: [{ type: "status", target: { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", namespace: "default", name: "d1", uid: "uid-d1" }, status: { numberOfSamples: 42, updateTime: "2026-11-27T12:00:00Z" } }],
  });
  const refused = await edge.receive({ id: "r2", peer: "edge-9", data: lcFrame("dataset", "d1", "status", { numberOfSamples: 1 }), now: "2026-11-27T12:00:00Z" });
  assert.equal(refused.reason, "not-sent-to-peer");
});

test("what each node holds survives a restart of workerd: a reconnect after it is sent the same state", async () => {
  await worker.restart();
  const edge = await worker.durableObject(SEDNA_EDGE, SEDNA_EDGE_OBJECT_NAME);
  // Acknowledge everything queued before the restart.
  let page = await edge.feed({ cursor: "0", waitSeconds: 0, delivered: [] });
  while (page.frames.length > 0) page = await edge.feed({ cursor: page.cursor, waitSeconds: 0, delivered: [] });
  const cursor = page.cursor;
  await edge.connectPeer({ peer: "edge-2", now: new Date().toISOString() });
  const state = await edge.feed({ cursor, waitSeconds: 0, delivered: [] });
  assert.deepEqual(described(state).sort(), ["edge-2 insert federatedlearningjob/fl", "edge-2 insert model/global-model"]);
});

test("through the Worker's channel routes (as the relay calls them): a node's connect, its state in the feed, its hello and its round report", async () => {
  const call = async <T>(name: string, body: unknown): Promise<T> => {
    const response = await signed(`${worker.url}/v1/channels/sedna-gm/${name}`, { body });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as T;
  };
  const { from } = await call<{ from: string }>("connect", { peer: "edge-1", now: new Date().toISOString() });
  const feed = await call<ChannelFeed>("feed", { cursor: String(Number(from) - 1), waitSeconds: 1, delivered: [] });
  assert.equal(feed.frames[0]?.seq, from);
  assert.deepEqual(described(feed).sort(), ["edge-1 insert dataset/d1", "edge-1 insert federatedlearningjob/fl", "edge-1 insert model/global-model"]);

  assert.deepEqual(await call("receive", { id: "h1", peer: "edge-1", data: LC_HELLO, now: new Date().toISOString() }), { accepted: true, actions: [] });
  const report = lcFrame("federatedlearningjob", "fl", "status", { phase: "train", status: "running", output: { models: [{ metrics: { accuracy: 0.91 } }], ownerInfo: { currentRound: 2, updateTime: "2026-11-27T12:00:00Z" } } });
  const answer = await call<{ accepted: boolean; actions: { type: string; target: { kind: string }; status: Record<string, unknown>; resourceVersion?: string }[] }>("receive", { id: "r3", peer: "edge-1", data: report, now: "2026-11-27T12:00:01Z" });
  assert.equal(answer.accepted, true);
  assert.deepEqual(answer.actions.map((a) => [a.type, a.target.kind, a.resourceVersion]), [["status", "Model", undefined], ["status", "FederatedLearningJob", "7"]]);
  assert.deepEqual(answer.actions[0]?.status, { metrics: [{ key: "accuracy", value: "0.91" }], updateTime: "2026-11-27T12:00:01Z" });
  assert.match(JSON.stringify(answer.actions[1]?.status), /"reason":"DoTraining","message":"Round 2 reaches at 2026-11-27T12:00:00Z"/);
});
