import assert from "node:assert/strict";
import { test } from "node:test";
import { CLOSE_OVERLOADED, PeerSession, type DownResult, type PeerSocket } from "./peer-session.ts";

/** A socket that records what is written and closes; writes complete at once unless `failing`. */
function fakeSocket(): PeerSocket & { written: string[]; closedWith: [number, string] | undefined; failing: boolean; bufferedAmount: number } {
  const socket = {
    written: [] as string[],
    closedWith: undefined as [number, string] | undefined,
    failing: false,
    bufferedAmount: 0,
    send(data: string, done: (error?: Error) => void): void {
      if (socket.failing) return done(new Error("closed"));
      socket.written.push(data);
      done();
    },
    close(code: number, reason: string): void {
      socket.closedWith = [code, reason];
    },
  };
  return socket;
}

function session(socket = fakeSocket(), limits = { heldFrames: 100, queuedBytes: 1_000 }): { session: PeerSession; socket: ReturnType<typeof fakeSocket>; counts: DownResult[]; delivered: bigint[] } {
  const counts: DownResult[] = [];
  const delivered: bigint[] = [];
  return { session: new PeerSession("node-a", socket, { counted: (r) => counts.push(r), delivered: (_peer, seq) => delivered.push(seq) }, limits), socket, counts, delivered };
}

test("frames before the connect answer are held, then those from its sequence on are written in order and the older dropped", async () => {
  const { session: s, socket, counts, delivered } = session();
  assert.equal(s.feed(3n, "old"), undefined);
  assert.equal(s.feed(5n, "state-1"), undefined);
  assert.equal(s.feed(6n, "state-2"), undefined);
  assert.deepEqual(socket.written, [], "nothing written before the connect answer");
  assert.equal(s.streaming, false);
  await Promise.all(s.connected(5n));
  assert.deepEqual(socket.written, ["state-1", "state-2"]);
  assert.deepEqual(counts, ["dropped", "sent", "sent"]);
  assert.deepEqual(delivered, [5n, 6n]);
  await s.feed(7n, "next");
  assert.equal(s.feed(4n, "late and older than the state"), undefined);
  assert.deepEqual(socket.written, ["state-1", "state-2", "next"]);
  assert.deepEqual(delivered, [5n, 6n, 7n]);
  assert.deepEqual(s.connected(1n), [], "a second answer changes nothing");
});

test("a failed write is dropped, not delivered; an ended session drops everything, held frames included", async () => {
  const { session: s, socket, counts, delivered } = session();
  s.connected(1n);
  socket.failing = true;
  await s.feed(2n, "x");
  assert.deepEqual(delivered, []);
  assert.deepEqual(counts, ["dropped"]);
  const other = session();
  other.session.feed(1n, "held");
  other.session.ended();
  assert.deepEqual(other.counts, ["dropped"]);
  assert.equal(other.session.feed(2n, "after"), undefined);
  assert.deepEqual(other.session.connected(0n), []);
  assert.deepEqual(other.socket.written, []);
  assert.deepEqual(other.counts, ["dropped", "dropped"]);
});

test("more held frames than the bound, or a socket that does not drain, closes that socket (1013): the peer reconnects for its whole state", async () => {
  const held = session(fakeSocket(), { heldFrames: 2, queuedBytes: 1_000 });
  held.session.feed(1n, "a");
  held.session.feed(2n, "b");
  assert.equal(held.socket.closedWith, undefined);
  held.session.feed(3n, "c");
  assert.equal(held.socket.closedWith?.[0], CLOSE_OVERLOADED);
  assert.equal(held.session.closed, true);
  assert.deepEqual(held.counts, ["dropped", "dropped", "dropped"]);
  const slow = session();
  slow.session.connected(0n);
  slow.socket.bufferedAmount = 5_000;
  assert.equal(slow.session.feed(1n, "x"), undefined);
  assert.equal(slow.socket.closedWith?.[0], CLOSE_OVERLOADED);
  assert.deepEqual(slow.socket.written, []);
});
