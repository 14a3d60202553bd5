import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { feedFrames } from "../../../protocol/index.ts";
import { SqliteSql } from "../testing/sqlite.ts";
import { ChannelStore, FEED_PAGE_BYTES, FEED_PAGE_FRAMES, type KeyFrames } from "./store.ts";

function store(sql = new SqliteSql(new DatabaseSync(":memory:"))): ChannelStore {
  return new ChannelStore(sql);
}

const v = (key: string, version: number): KeyFrames => ({ insert: `insert ${key} v${version}`, delete: `delete ${key} v${version}` });

/** The frames after `cursor` as `peer: data`. */
function sent(channel: ChannelStore, cursor = "0"): string[] {
  return feedFrames(channel.feed({ cursor, delivered: [] })).map((f) => `${f.peer}: ${f.data}`);
}

test("setting a key sends its insert to each target peer once; unchanged content sends nothing", () => {
  const channel = store();
  assert.equal(channel.set("job", v("job", 1), ["n2", "n1"]), 2);
  assert.deepEqual(sent(channel), ["n1: insert job v1", "n2: insert job v1"]);
  assert.equal(channel.set("job", v("job", 1), ["n1", "n2"]), 0);
  assert.deepEqual(sent(channel), ["n1: insert job v1", "n2: insert job v1"], "nothing more in the feed");
  assert.ok(channel.heldBy("n1", "job") && channel.heldBy("n2", "job") && !channel.heldBy("n3", "job"));
});

test("changed content goes to every target peer; a peer no longer targeted gets the delete and a tombstone; a new one the insert", () => {
  const channel = store();
  channel.set("job", v("job", 1), ["n1", "n2"]);
  const cursor = channel.feed({ cursor: "0", delivered: [] }).cursor;
  assert.equal(channel.set("job", v("job", 2), ["n1", "n3"]), 3);
  assert.deepEqual(sent(channel, cursor), ["n2: delete job v2", "n1: insert job v2", "n3: insert job v2"]);
  assert.ok(!channel.heldBy("n2", "job"));
  assert.ok(channel.wasSentTo("n2", "job"), "the delete is not confirmed yet: n2 may still report on it");
  assert.deepEqual(channel.counts(), { frames: 2, keys: 1, holds: 2, tombstones: 1, log: 3 }, "v1's frames, acknowledged, are forgotten");
});

test("removing a key sends its delete to every holder and leaves tombstones; a key nobody holds keeps no frames", () => {
  const channel = store();
  channel.set("job", v("job", 1), ["n1", "n2"]);
  assert.equal(channel.remove("job"), 2);
  assert.deepEqual(sent(channel).slice(2), ["n1: delete job v1", "n2: delete job v1"]);
  assert.deepEqual(channel.counts(), { frames: 2, keys: 0, holds: 0, tombstones: 2, log: 4 });
  assert.equal(channel.remove("job"), 0, "removing again sends nothing");
  assert.equal(channel.remove("never"), 0);
});

test("a frame sent to a thousand peers is stored once; once nothing refers to it, it is forgotten", () => {
  const channel = store();
  const peers = Array.from({ length: 1000 }, (_, i) => `n${i}`);
  channel.set("job", { insert: "x".repeat(100_000), delete: "d" }, peers);
  assert.deepEqual(channel.counts(), { frames: 2, keys: 1, holds: 1000, tombstones: 0, log: 1000 });
  channel.remove("job");
  let page = channel.feed({ cursor: "0", delivered: [] });
  while (page.frames.length > 0) page = channel.feed({ cursor: page.cursor, delivered: [] });
  assert.deepEqual(channel.counts(), { frames: 1, keys: 0, holds: 0, tombstones: 1000, log: 0 }, "only the delete, which the tombstones still need");
  channel.feed({ cursor: page.cursor, delivered: peers.map((peer) => ({ peer, seq: page.cursor })) });
  assert.deepEqual(channel.counts(), { frames: 0, keys: 0, holds: 0, tombstones: 0, log: 0 });
});

test("a delete written to the peer's socket clears its tombstone; one not yet written keeps it", () => {
  const channel = store();
  channel.set("a", v("a", 1), ["n1"]);
  channel.set("b", v("b", 1), ["n1"]);
  channel.remove("a"); // seq 3
  channel.remove("b"); // seq 4
  channel.feed({ cursor: "4", delivered: [{ peer: "n1", seq: "3" }] });
  assert.ok(!channel.wasSentTo("n1", "a"), "a's delete (3) was written");
  assert.ok(channel.wasSentTo("n1", "b"), "b's delete (4) was not");
  channel.feed({ cursor: "4", delivered: [{ peer: "n2", seq: "4" }] });
  assert.ok(channel.wasSentTo("n1", "b"), "another peer's write clears nothing of n1");
});

test("connect queues the peer's whole state (inserts of what it holds, deletes of its tombstones) and answers where it starts", () => {
  const channel = store();
  channel.set("a", v("a", 1), ["n1", "n2"]);
  channel.set("b", v("b", 1), ["n1"]);
  channel.remove("b");
  const { cursor } = channel.feed({ cursor: "0", delivered: [] });
  assert.equal(cursor, "4");
  const { from } = channel.connect("n1");
  assert.equal(from, "5");
  assert.deepEqual(sent(channel, cursor), ["n1: insert a v1", "n1: delete b v1"]);
  // The tombstone now waits for the resent delete (6), not the first one (4).
  channel.feed({ cursor: "6", delivered: [{ peer: "n1", seq: "4" }] });
  assert.ok(channel.wasSentTo("n1", "b"));
  channel.feed({ cursor: "6", delivered: [{ peer: "n1", seq: "6" }] });
  assert.ok(!channel.wasSentTo("n1", "b"));
  assert.deepEqual(channel.connect("n1"), { from: "7", appended: 1 }, "then only what it holds");
  assert.deepEqual(channel.connect("n3"), { from: "8", appended: 0 }, "a peer with nothing starts at the next sequence");
});

test("connect drops the peer's earlier unacknowledged frames (its state supersedes them) and keeps other peers'", () => {
  const channel = store();
  channel.set("a", v("a", 1), ["n1", "n2"]);
  channel.set("a", v("a", 2), ["n1", "n2"]);
  channel.connect("n1");
  assert.deepEqual(sent(channel), ["n2: insert a v1", "n2: insert a v2", "n1: insert a v2"]);
});

test("a re-targeted peer's tombstone goes with the insert that gives the key back", () => {
  const channel = store();
  channel.set("a", v("a", 1), ["n1"]);
  channel.set("a", v("a", 1), []);
  assert.ok(channel.wasSentTo("n1", "a"));
  channel.set("a", v("a", 1), ["n1"]);
  assert.equal(channel.counts().tombstones, 0);
  assert.deepEqual(channel.connect("n1"), { from: "4", appended: 1 }, "no delete after the insert on reconnect");
});

test("the feed answers in sequence order, acknowledges up to the cursor, and never reuses a sequence", () => {
  const channel = store();
  channel.set("a", v("a", 1), ["n1"]);
  channel.set("b", v("b", 1), ["n2"]);
  const first = channel.feed({ cursor: "0", delivered: [] });
  assert.deepEqual(first.frames.map((f) => f.seq), ["1", "2"]);
  const second = channel.feed({ cursor: first.cursor, delivered: [] });
  assert.deepEqual(second, { cursor: "2", texts: [], frames: [] });
  assert.equal(channel.counts().log, 0, "acknowledged frames are deleted");
  channel.set("c", v("c", 1), ["n1"]);
  assert.deepEqual(channel.feed({ cursor: "2", delivered: [] }).frames.map((f) => f.seq), ["3"]);
});

test("a cursor beyond every sequence assigned (a newer store than the relay's cursor) reads from the start", () => {
  const channel = store();
  channel.set("a", v("a", 1), ["n1"]);
  assert.deepEqual(channel.feed({ cursor: "900", delivered: [] }).frames.map((f) => f.seq), ["1"]);
});

test("a page holds at most FEED_PAGE_FRAMES frames and about FEED_PAGE_BYTES; a larger frame goes alone", () => {
  const channel = store();
  for (let i = 0; i < FEED_PAGE_FRAMES + 20; i++) channel.set(`k${String(i).padStart(4, "0")}`, v(`k${i}`, 1), ["n1"]);
  const page = channel.feed({ cursor: "0", delivered: [] });
  assert.equal(page.frames.length, FEED_PAGE_FRAMES);
  assert.equal(channel.feed({ cursor: page.cursor, delivered: [] }).frames.length, 20);

  const big = store();
  const half = "x".repeat(FEED_PAGE_BYTES / 2 + 1);
  big.set("a", { insert: half, delete: "d" }, ["n1"]);
  big.set("b", { insert: `${half}y`, delete: "d" }, ["n1"]);
  big.set("c", { insert: "x".repeat(FEED_PAGE_BYTES + 10), delete: "d" }, ["n1"]);
  const sizes = [big.feed({ cursor: "0", delivered: [] }), big.feed({ cursor: "1", delivered: [] }), big.feed({ cursor: "2", delivered: [] })].map((p) => p.frames.length);
  assert.deepEqual(sizes, [1, 1, 1], "two halves do not fit one page; the oversized frame is sent alone, whole");
});

test("a text sent to many peers travels once and counts once against a page's bytes", () => {
  const channel = store();
  const peers = Array.from({ length: FEED_PAGE_FRAMES }, (_, i) => `n${i}`);
  // A job as large as a third of a page, for every peer: one page, one copy.
  channel.set("job", { insert: "j".repeat(FEED_PAGE_BYTES / 3), delete: "d" }, peers);
  const page = channel.feed({ cursor: "0", delivered: [] });
  assert.equal(page.frames.length, FEED_PAGE_FRAMES);
  assert.equal(page.texts.length, 1);
  assert.ok(page.frames.every((frame) => frame.text === 0));
  assert.deepEqual(new Set(feedFrames(page).map((frame) => frame.peer)), new Set(peers));
});

test("whatever the sequence of sets, removes, connects and acknowledgements, the frames stored are exactly those still referred to", () => {
  const sql = new SqliteSql(new DatabaseSync(":memory:"));
  const channel = store(sql);
  let seed = 42;
  const next = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const peers = ["n1", "n2", "n3", "n4"];
  let cursor = "0";
  for (let step = 0; step < 400; step++) {
    const key = `k${next(5)}`;
    const op = next(5);
    if (op === 0) channel.remove(key);
    else if (op === 1) channel.connect(peers[next(4)] ?? "n1");
    else if (op === 2) {
      const page = channel.feed({ cursor, delivered: next(2) === 0 ? [{ peer: peers[next(4)] ?? "n1", seq: cursor }] : [] });
      cursor = page.cursor;
    } else channel.set(key, v(key, next(3)), peers.filter(() => next(2) === 0));
    const referenced = sql.exec<{ n: number }>(
      "SELECT COUNT(*) AS n FROM (SELECT frame_id AS id FROM channel_log UNION SELECT insert_id FROM channel_keys UNION SELECT delete_id FROM channel_keys UNION SELECT delete_id FROM channel_tombstones)",
    ).one().n;
    assert.equal(channel.counts().frames, referenced, `step ${step}`);
  }
});
