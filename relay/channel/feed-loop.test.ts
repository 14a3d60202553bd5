import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { feedOf, StatusError, type ChannelFeed, type ChannelFeedRequest } from "../../protocol/index.ts";
import { DeliveredMarks } from "./delivered-marks.ts";
import { FeedLoop } from "./feed-loop.ts";
import { PeerSession, type PeerSocket } from "./peer-session.ts";

/** A fake Worker feed: each request waits for the test's answer. */
function fakeFeed(): { requests: ChannelFeedRequest[]; answer(with_: ChannelFeed | Error): void; feed(request: ChannelFeedRequest, signal: AbortSignal): Promise<ChannelFeed> } {
  const requests: ChannelFeedRequest[] = [];
  const pending: ((answer: ChannelFeed | Error) => void)[] = [];
  return {
    requests,
    answer: (answer) => pending.shift()?.(answer),
    feed: (request, signal) =>
      new Promise((resolve, reject) => {
        requests.push(structuredClone(request));
        pending.push((answer) => (answer instanceof Error ? reject(answer) : resolve(answer)));
        signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      }),
  };
}

/** A socket whose writes complete when the test says (`complete()`), in order. */
function heldSocket(): PeerSocket & { written: string[]; complete(): void } {
  const callbacks: ((error?: Error) => void)[] = [];
  return {
    written: [],
    bufferedAmount: 0,
    send(data, done) {
      this.written.push(data);
      callbacks.push(done);
    },
    close() {},
    complete: () => {
      for (const done of callbacks.splice(0)) done();
    },
  };
}

test("frames go to their peers' sessions; a peer not connected drops them; the batch is acknowledged by the next cursor, and the completed writes are reported in that request", async () => {
  const worker = fakeFeed();
  const marks = new DeliveredMarks();
  const socket = heldSocket();
  const counts: string[] = [];
  const session = new PeerSession("node-a", socket, { counted: (r) => counts.push(r), delivered: (peer, seq) => marks.record(peer, seq) });
  session.connected(1n);
  let dropped = 0;
  const loop = new FeedLoop({ channel: "edge", feed: worker.feed, session: (peer) => (peer === "node-a" ? session : undefined), dropped: () => dropped++, marks, log: () => undefined, waitSeconds: 20, backoff: { firstMs: 1, maxMs: 2 }, writesWaitMs: 5_000 });
  loop.start();
  await waitFor("the first poll", () => worker.requests.length, (n) => n === 1);
  assert.deepEqual(worker.requests[0], { cursor: "0", waitSeconds: 20, delivered: [] });
  worker.answer(
    feedOf("9", [
      { seq: "7", peer: "node-a", data: "one" },
      { seq: "8", peer: "node-b", data: "not connected" },
      { seq: "9", peer: "node-a", data: "two" },
    ]),
  );
  await waitFor("the writes", () => socket.written.length, (n) => n === 2);
  assert.equal(dropped, 1);
  assert.equal(worker.requests.length, 1, "no next poll (no acknowledgement) until the batch's writes completed");
  socket.complete();
  await waitFor("the second poll", () => worker.requests.length, (n) => n === 2);
  assert.deepEqual(worker.requests[1], { cursor: "9", waitSeconds: 20, delivered: [{ peer: "node-a", seq: "9" }] });
  assert.deepEqual(socket.written, ["one", "two"]);
  assert.deepEqual(counts, ["sent", "sent"]);
  await loop.stop();
});

test("a failed poll backs off and is sent again with the same cursor and the same delivered report", async () => {
  const worker = fakeFeed();
  const marks = new DeliveredMarks();
  marks.record("node-a", 4n);
  const logs: string[] = [];
  const loop = new FeedLoop({ channel: "edge", feed: worker.feed, session: () => undefined, dropped: () => undefined, marks, log: (_l, msg) => logs.push(msg), waitSeconds: 0, backoff: { firstMs: 1, maxMs: 2 } });
  loop.start();
  await waitFor("the first poll", () => worker.requests.length, (n) => n === 1);
  worker.answer(new StatusError(503, "Unavailable", "busy"));
  await waitFor("the second poll", () => worker.requests.length, (n) => n === 2);
  assert.deepEqual(worker.requests[1], worker.requests[0]);
  assert.deepEqual(worker.requests[1]?.delivered, [{ peer: "node-a", seq: "4" }]);
  worker.answer(feedOf("3", []));
  await waitFor("the third poll", () => worker.requests.length, (n) => n === 3);
  assert.deepEqual(worker.requests[2], { cursor: "3", waitSeconds: 0, delivered: [] });
  assert.deepEqual(logs, ["channel feed poll failed"]);
  await loop.stop();
  assert.equal(loop.cursor, "3");
});

test("delivered marks keep the highest sequence per peer, and a restored report does not lower a newer mark", () => {
  const marks = new DeliveredMarks();
  marks.record("a", 5n);
  marks.record("a", 3n);
  marks.record("b", 1n);
  const taken = marks.take();
  assert.deepEqual(taken, [{ peer: "a", seq: "5" }, { peer: "b", seq: "1" }]);
  marks.record("a", 9n);
  marks.restore(taken);
  assert.deepEqual(marks.take(), [{ peer: "a", seq: "9" }, { peer: "b", seq: "1" }]);
  assert.equal(marks.size, 0);
});
