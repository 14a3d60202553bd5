import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock, settle } from "../../test/support/fake-clock.ts";
import { WorkQueue, type Outcome, type QueueObserver, type WorkQueueOptions } from "./workqueue.ts";

/** A process function whose calls stay open until released. */
function gate(): { calls: { key: string; items: string[]; release: (o: Outcome) => void }[]; process: (key: string, items: string[]) => Promise<Outcome> } {
  const calls: { key: string; items: string[]; release: (o: Outcome) => void }[] = [];
  return {
    calls,
    process: (key, items) => new Promise<Outcome>((release) => calls.push({ key, items, release })),
  };
}

/** A started queue on a fake clock, processing through a {@link gate}. */
function running(options: Omit<WorkQueueOptions, "clock">): { clock: FakeClock; queue: WorkQueue<string>; calls: ReturnType<typeof gate>["calls"] } {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ ...options, clock });
  const { calls, process } = gate();
  queue.start(process);
  return { clock, queue, calls };
}

test("a key added many times while waiting is processed once, with every item", async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ concurrency: 4, clock });
  const { calls, process } = gate();
  queue.add("a", "1");
  queue.add("a", "2");
  queue.add("a", "3");
  queue.start(process);
  await settle();
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0]?.items, ["1", "2", "3"]);
});

test("a key is never processed twice at once; added while in flight, it runs again after", async () => {
  const { queue, calls } = running({ concurrency: 4 });
  queue.add("a", "1");
  await settle();
  queue.add("a", "2");
  await settle();
  assert.equal(calls.length, 1, "no second call while the first is in flight");
  calls[0]?.release({ kind: "done" });
  await settle();
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[1]?.items, ["2"]);
});

test("concurrency bounds the keys in flight", async () => {
  const { queue, calls } = running({ concurrency: 2 });
  for (const key of ["a", "b", "c", "d"]) queue.add(key);
  await settle();
  assert.deepEqual(calls.map((c) => c.key), ["a", "b"]);
  assert.equal(queue.inFlight, 2);
  assert.equal(queue.depth, 2);
  calls[0]?.release({ kind: "done" });
  await settle();
  assert.deepEqual(calls.map((c) => c.key), ["a", "b", "c"]);
});

test("failures back off per key exponentially, keep their items, and reset on success", async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ concurrency: 1, clock, baseDelayMs: 10, maxDelayMs: 40 });
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => queue.backoff(n)), [10, 20, 40, 40, 40]);
  const { calls, process } = gate();
  queue.start(process);
  queue.add("a", "x");
  await settle();
  calls[0]?.release({ kind: "retry" });
  await clock.advance(9);
  assert.equal(calls.length, 1, "not before 10 ms");
  await clock.advance(1);
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[1]?.items, ["x"], "the triggers are kept for the retry");
  calls[1]?.release({ kind: "retry" });
  await clock.advance(19);
  assert.equal(calls.length, 2, "second failure waits 20 ms");
  await clock.advance(1);
  assert.equal(calls.length, 3);
  calls[2]?.release({ kind: "done" });
  await settle();
  queue.add("a");
  await settle();
  calls[3]?.release({ kind: "retry" });
  await clock.advance(10);
  assert.equal(calls.length, 5, "after a success the backoff starts again at 10 ms");
});

test("a retry honours a longer Retry-After", async () => {
  const { clock, queue, calls } = running({ concurrency: 1, baseDelayMs: 10 });
  queue.add("a");
  await settle();
  calls[0]?.release({ kind: "retry", afterMs: 500 });
  await clock.advance(499);
  assert.equal(calls.length, 1);
  await clock.advance(1);
  assert.equal(calls.length, 2);
});

test("requeueAfter runs the key again later; a new add runs it at once", async () => {
  const { clock, queue, calls } = running({ concurrency: 1 });
  queue.add("a");
  await settle();
  calls[0]?.release({ kind: "done", requeueAfterMs: 1_000 });
  await clock.advance(999);
  assert.equal(calls.length, 1);
  await clock.advance(1);
  assert.equal(calls.length, 2);
  calls[1]?.release({ kind: "done", requeueAfterMs: 1_000 });
  await settle();
  queue.add("a", "event");
  await settle();
  assert.equal(calls.length, 3, "an event does not wait for the requeue");
  assert.equal(clock.now(), 1_000);
});

test("a key made dirty while in flight runs again at once, even when that run asked for a requeue", async () => {
  const { clock, queue, calls } = running({ concurrency: 1 });
  queue.add("a", "first");
  await settle();
  queue.add("a", "meanwhile");
  calls[0]?.release({ kind: "done", requeueAfterMs: 6_000 });
  await settle();
  assert.equal(calls.length, 2, "the change that arrived meanwhile is not held back by the requeue");
  assert.deepEqual(calls[1]?.items, ["meanwhile"]);
  assert.equal(clock.now(), 0);
});

test("the token bucket bounds the overall rate", async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ concurrency: 100, clock, ratePerSecond: 10, burst: 2 });
  let processed = 0;
  queue.start(async () => {
    processed++;
    return { kind: "done" };
  });
  for (let i = 0; i < 6; i++) queue.add(`k${i}`);
  await settle();
  assert.equal(processed, 2, "the burst");
  await clock.advance(100);
  assert.equal(processed, 3, "one token per 100 ms");
  await clock.advance(300);
  assert.equal(processed, 6);
});

test("a thrown error counts as a retry; stop waits for in-flight keys and cancels delays", async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ concurrency: 1, clock, baseDelayMs: 10 });
  let attempts = 0;
  queue.start(async () => {
    attempts++;
    throw new Error("boom");
  });
  queue.add("a");
  await clock.advance(10);
  assert.equal(attempts, 2);
  await queue.stop();
  await clock.advance(1_000);
  assert.equal(attempts, 2, "nothing runs after stop");
  assert.equal(clock.pending, 0);
  queue.add("b");
  await settle();
  assert.equal(attempts, 2, "adds after stop are ignored");
});

test("depth counts every key waiting: ready, backing off, requeued for later, dirty while in flight; retrying counts the backing off", async () => {
  const { queue, calls } = running({ concurrency: 2, baseDelayMs: 1_000 });
  for (const key of ["failing", "requeued", "busy", "ready"]) queue.add(key);
  await settle();
  assert.deepEqual(calls.map((c) => c.key), ["failing", "requeued"]);
  calls[0]?.release({ kind: "retry" });
  calls[1]?.release({ kind: "done", requeueAfterMs: 60_000 });
  await settle();
  // "busy" and "ready" took the freed slots; "busy" is made dirty again while in flight.
  assert.deepEqual(calls.map((c) => c.key), ["failing", "requeued", "busy", "ready"]);
  queue.add("busy");
  queue.add("waiting");
  assert.equal(queue.depth, 4, "failing (backoff), requeued (later), busy (dirty in flight), waiting (ready)");
  assert.equal(queue.retrying, 1);
  assert.equal(queue.inFlight, 2);
});

test("batched adds: a burst waits out the batch period and is processed once with every item; an immediate add does not wait", async () => {
  const { clock, queue, calls } = running({ concurrency: 4 });
  queue.addBatched("job", "pod-1 added", 500);
  await clock.advance(200);
  queue.addBatched("job", "pod-2 added", 500);
  await settle();
  assert.equal(calls.length, 0, "nothing before the period the first change started");
  await clock.advance(300);
  await settle();
  assert.deepEqual(calls.map((c) => c.items), [["pod-1 added", "pod-2 added"]]);
  calls[0]?.release({ kind: "done" });
  await settle();
  queue.addBatched("job", "pod-3 added", 500);
  queue.add("job", "pod-4 deleted");
  await settle();
  assert.deepEqual(calls[1]?.items, ["pod-3 added", "pod-4 deleted"], "a deletion is not held back, and takes the batch along");
  calls[1]?.release({ kind: "done" });
  await settle();
  await clock.advance(1_000);
  await settle();
  assert.equal(calls.length, 2, "the batched change was already processed: nothing runs again");
});

test("batched changes that arrive while their key is in flight still wait out the batch; an immediate add among them does not", async () => {
  const { clock, queue, calls } = running({ concurrency: 4 });
  queue.add("node", "first");
  await settle();
  await clock.advance(100);
  queue.addBatched("node", "pod-1 changed", 500);
  await clock.advance(100);
  queue.addBatched("node", "pod-2 changed", 500);
  calls[0]?.release({ kind: "done" });
  await settle();
  assert.equal(calls.length, 1, "done 400 ms before the first batched change is due: not run at once");
  await clock.advance(399);
  await settle();
  assert.equal(calls.length, 1);
  await clock.advance(1);
  await settle();
  assert.deepEqual(calls[1]?.items, ["pod-1 changed", "pod-2 changed"], "one run for the burst, when its first change is due");
  queue.addBatched("node", "pod-3 changed", 500);
  queue.add("node", "pod-4 deleted");
  calls[1]?.release({ kind: "done", requeueAfterMs: 10_000 });
  await settle();
  assert.deepEqual(calls[2]?.items, ["pod-3 changed", "pod-4 deleted"], "a deletion while in flight runs again at once, taking the batch along");
  calls[2]?.release({ kind: "done" });
  await clock.advance(1_000);
  await settle();
  assert.equal(calls.length, 3, "nothing left to run");
});

test("a batched change whose batch came due while its key was in flight runs as soon as the key is done", async () => {
  const { clock, queue, calls } = running({ concurrency: 4 });
  queue.add("node", "first");
  await settle();
  queue.addBatched("node", "pod changed", 100);
  await clock.advance(500);
  calls[0]?.release({ kind: "done" });
  await settle();
  assert.deepEqual(calls[1]?.items, ["pod changed"]);
});

/** An observer writing each call as `hook key` (with the outcome's kind for done), with the fake clock's time. */
function observed(clock: FakeClock): { observer: QueueObserver; calls: string[] } {
  const calls: string[] = [];
  const log = (line: string): void => void calls.push(`${clock.now()} ${line}`);
  return {
    calls,
    observer: {
      add: (key) => log(`add ${key}`),
      get: (key) => log(`get ${key}`),
      done: (key, outcome) => log(`done ${key} ${outcome.kind}`),
      retry: (key) => log(`retry ${key}`),
    },
  };
}

test("the observer hears add, get, done and retry where client-go's workqueue calls its metrics", async () => {
  const clock = new FakeClock();
  const { observer, calls } = observed(clock);
  const queue = new WorkQueue<string>({ concurrency: 1, clock, observer, baseDelayMs: 100 });
  const { calls: runs, process } = gate();
  queue.start(process);
  queue.add("a");
  queue.add("b");
  await settle();
  await clock.advance(10);
  runs[0]?.release({ kind: "retry" });
  await settle();
  await clock.advance(10);
  runs[1]?.release({ kind: "done", requeueAfterMs: 1_000 });
  await settle();
  // a comes back after its 100 ms backoff; b after its 1 s requeue.
  await clock.advance(100);
  runs[2]?.release({ kind: "done" });
  await clock.advance(1_000);
  runs[3]?.release({ kind: "done" });
  await settle();
  assert.deepEqual(calls, [
    "0 add a",
    "0 get a",
    "0 add b",
    "10 done a retry",
    "10 retry a",
    "10 get b",
    "20 done b done",
    "20 retry b",
    "110 add a",
    "110 get a",
    "120 done a done",
    "1020 add b",
    "1020 get b",
    "1120 done b done",
  ]);
});

test("the observer is told again of a key added while in flight, and of a batched key when its batch is due", async () => {
  const clock = new FakeClock();
  const { observer, calls } = observed(clock);
  const queue = new WorkQueue<string>({ concurrency: 1, clock, observer });
  const { calls: runs, process } = gate();
  queue.start(process);
  queue.add("a");
  await settle();
  queue.add("a");
  queue.addBatched("b", "x", 50);
  runs[0]?.release({ kind: "done" });
  await settle();
  await clock.advance(50);
  assert.deepEqual(calls, ["0 add a", "0 get a", "0 add a", "0 done a done", "0 add a", "0 get a", "50 add b"]);
});

test("retryFailedNow runs keys backing off at once with their backoff reset, but not one told to wait by the server", async () => {
  const { clock, queue, calls } = running({ concurrency: 2, baseDelayMs: 1_000, maxDelayMs: 30_000 });
  queue.add("a", "x");
  queue.add("b", "y");
  await settle();
  calls[0]?.release({ kind: "retry" });
  calls[1]?.release({ kind: "retry", afterMs: 5_000 });
  await settle();
  assert.equal(queue.retryFailedNow(), 1);
  await clock.advance(0);
  assert.deepEqual(calls.slice(2).map((c) => [c.key, c.items]), [["a", ["x"]]], "a at once with its items; b still waits");
  calls[2]?.release({ kind: "retry" });
  await clock.advance(999);
  assert.equal(calls.length, 3, "a's backoff starts again at the base delay");
  await clock.advance(1);
  assert.equal(calls.at(-1)?.key, "a");
  await clock.advance(4_000);
  assert.equal(calls.at(-1)?.key, "b", "b after the 5 s it was told");
});
