import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { StatusError, type Action, type ChannelReceive, type ChannelReceiveAnswer } from "../../protocol/index.ts";
import type { ApplyResult } from "../apply/applier.ts";
import { UpstreamQueue, type UpResult, type UpstreamDeps } from "./upstream.ts";

const FAST = { firstMs: 1, maxMs: 4 };
const event: Action = { type: "event", target: { apiVersion: "v1", kind: "Node", name: "node-a" }, eventType: "Warning", reason: "Refused", message: "no" };

interface Harness {
  readonly queue: UpstreamQueue;
  readonly sent: ChannelReceive[];
  readonly results: UpResult[];
  readonly applied: Action[][];
  readonly logs: { level: string; msg: string; fields: Record<string, unknown> | undefined }[];
  readonly socket: { paused: number; resumed: number; pause(): void; resume(): void };
  /** Answers the oldest request waiting (requests wait until answered). */
  answer(with_: ChannelReceiveAnswer | Error): void;
  readonly waiting: number;
}

function harness(overrides: Partial<UpstreamDeps> = {}): Harness {
  const sent: ChannelReceive[] = [];
  const results: UpResult[] = [];
  const applied: Action[][] = [];
  const logs: Harness["logs"] = [];
  const pending: ((answer: ChannelReceiveAnswer | Error) => void)[] = [];
  let ids = 0;
  const socket = {
    paused: 0,
    resumed: 0,
    pause(): void {
      socket.paused++;
    },
    resume(): void {
      socket.resumed++;
    },
  };
  const queue = new UpstreamQueue({
    channel: "edge",
    peer: "node-a",
    receive: (request) =>
      new Promise((resolve, reject) => {
        sent.push(request);
        pending.push((answer) => (answer instanceof Error ? reject(answer) : resolve(answer)));
      }),
    apply: (actions): Promise<ApplyResult> => {
      applied.push(actions);
      return Promise.resolve({ ok: true, failed: 0 });
    },
    newId: () => `id-${++ids}`,
    counted: (result) => results.push(result),
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
    signal: new AbortController().signal,
    backoff: FAST,
    highWater: 4,
    ...overrides,
  });
  queue.attach(socket);
  return {
    queue,
    sent,
    results,
    applied,
    logs,
    socket,
    answer: (answer) => pending.shift()?.(answer),
    get waiting() {
      return pending.length;
    },
  };
}

const ok: ChannelReceiveAnswer = { accepted: true, actions: [] };

test("a peer's frames go one at a time, in its order, each with its own id", async () => {
  const h = harness();
  h.queue.push("a");
  h.queue.push("b");
  h.queue.push("c");
  await waitFor("the first request", () => h.waiting, (n) => n === 1);
  assert.deepEqual(h.sent.map((r) => r.data), ["a"], "one in flight");
  for (const expected of ["a", "b", "c"]) {
    await waitFor(`the request of ${expected}`, () => h.sent.at(-1)?.data, (d) => d === expected);
    assert.equal(h.waiting, 1);
    h.answer(ok);
  }
  await waitFor("three accepted", () => h.results, (r) => r.length === 3);
  assert.deepEqual(h.results, ["accepted", "accepted", "accepted"]);
  assert.deepEqual(h.sent.map((r) => [r.id, r.peer]), [["id-1", "node-a"], ["id-2", "node-a"], ["id-3", "node-a"]]);
});

test("a transient failure is retried with the same id, keeping the frame's place; a refusal for good is counted failed and the next goes on", async () => {
  const h = harness();
  h.queue.push("a");
  h.queue.push("b");
  await waitFor("a sent", () => h.waiting, (n) => n === 1);
  h.answer(new StatusError(0, "Unreachable", "down"));
  await waitFor("a sent again", () => h.sent.length, (n) => n === 2);
  h.answer(new StatusError(503, "Unavailable", "busy"));
  await waitFor("a sent a third time", () => h.sent.length, (n) => n === 3);
  assert.deepEqual(h.sent.map((r) => [r.id, r.data]), [["id-1", "a"], ["id-1", "a"], ["id-1", "a"]], "b waits behind a");
  h.answer(new StatusError(400, "invalid", "bad"));
  await waitFor("b sent", () => h.sent.length, (n) => n === 4);
  assert.deepEqual(h.results, ["failed"]);
  assert.deepEqual([h.sent[3]?.id, h.sent[3]?.data], ["id-2", "b"]);
  h.answer(ok);
  await waitFor("b accepted", () => h.results, (r) => r.length === 2);
  assert.ok(h.logs.some((l) => l.msg === "channel frame not forwarded, retrying"));
});

test("a refused frame is logged with its peer, reason and message, counted refused, and its actions (a Warning Event) applied", async () => {
  const h = harness();
  h.queue.push("x");
  await waitFor("x sent", () => h.waiting, (n) => n === 1);
  h.answer({ accepted: false, reason: "not-sent-to-peer", message: "node-a never held default/job", actions: [event] });
  await waitFor("counted", () => h.results, (r) => r.length === 1);
  assert.deepEqual(h.results, ["refused"]);
  assert.deepEqual(h.applied, [[event]]);
  const line = h.logs.find((l) => l.msg === "channel frame refused");
  assert.deepEqual(line?.fields, { channel: "edge", peer: "node-a", reason: "not-sent-to-peer", message: "node-a never held default/job" });
  assert.equal(line?.level, "warn");
});

test("when an answer's actions do not all apply (a 409), the frame is forwarded again and the new answer applied; counted failed after five forwards", async () => {
  const attempts: Action[][] = [];
  let failures = 1;
  const fresh: Action = { ...event, reason: "Fresh" };
  const h = harness({
    apply: (actions) => {
      attempts.push(actions);
      if (failures-- > 0) return Promise.resolve({ ok: false, retry: true, error: "conflict", unapplied: actions });
      return Promise.resolve({ ok: true, failed: 0 });
    },
  });
  h.queue.push("x");
  await waitFor("x sent", () => h.waiting, (n) => n === 1);
  h.answer({ accepted: true, actions: [event] });
  // Not the stale actions again: the Worker is asked anew, and its new answer is what applies.
  await waitFor("x sent again", () => h.waiting, (n) => n === 1);
  h.answer({ accepted: true, actions: [fresh] });
  await waitFor("counted", () => h.results, (r) => r.length === 1);
  assert.deepEqual(attempts, [[event], [fresh]]);
  assert.deepEqual(h.results, ["accepted"]);
  failures = 100;
  h.queue.push("y");
  for (let forward = 1; forward <= 5; forward++) {
    await waitFor(`y forwarded (${forward})`, () => h.waiting, (n) => n === 1);
    h.answer({ accepted: true, actions: [event] });
  }
  await waitFor("counted", () => h.results, (r) => r.length === 2);
  assert.equal(h.results[1], "failed");
  assert.equal(attempts.length, 2 + 5);
});

test("more frames than the high-water mark pause the socket; it resumes once the queue is half drained, and the drained queue says so", async () => {
  let drained = 0;
  const h = harness({ drained: () => drained++ });
  for (const data of ["1", "2", "3", "4"]) h.queue.push(data);
  assert.equal(h.socket.paused, 0, "at the mark, not above");
  h.queue.push("5");
  assert.equal(h.socket.paused, 1);
  h.queue.push("6");
  assert.equal(h.socket.paused, 1, "paused once");
  for (let answered = 0; answered < 6; answered++) {
    await waitFor("a request", () => h.waiting, (n) => n === 1);
    h.answer(ok);
    // Six queued: the fourth answer leaves two, half the mark.
    if (answered === 2) assert.equal(h.socket.resumed, 0);
    if (answered === 3) await waitFor("resumed", () => h.socket.resumed, (n) => n === 1);
  }
  await waitFor("drained", () => drained, (n) => n === 1);
  assert.equal(h.queue.size, 0);
  assert.equal(h.socket.resumed, 1);
  assert.deepEqual(h.sent.map((r) => r.data), ["1", "2", "3", "4", "5", "6"]);
});
