import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/support/fake-clock.ts";
import { systemClock, WorkQueue, type Keyed, type KeyWorker, type Outcome, type QueueObserver, type WorkQueueOptions } from "./workqueue.ts";

/** A key of the queues under test. */
const k = (id: string): Keyed => ({ id });

/** One processing of a key, open until released. */
interface Call {
  readonly key: string;
  readonly items: string[];
  /** Ends the processing with `outcome`; resolves once the queue has acted on it (requeued, run again, or let go). */
  release(outcome: Outcome): Promise<void>;
}

/**
 * A worker whose calls stay open until released, and the observer that tells it when the
 * queue is done with a released call (the queue acts on an outcome right after its
 * observer hears `done`, in the same turn).
 */
function gate(): { calls: Call[]; worker: KeyWorker<Keyed, string>; observer: QueueObserver<Keyed> } {
  const calls: Call[] = [];
  const handled = new Map<string, (() => void)[]>();
  const worker: KeyWorker<Keyed, string> = {
    process: (key, items) =>
      new Promise<Outcome>((resolve) =>
        calls.push({
          key: key.id,
          items,
          release: (outcome) =>
            new Promise<void>((done) => {
              handled.set(key.id, [...(handled.get(key.id) ?? []), done]);
              resolve(outcome);
            }),
        }),
      ),
  };
  const observer: QueueObserver<Keyed> = { add: () => undefined, get: () => undefined, retry: () => undefined, done: (key) => handled.get(key.id)?.shift()?.() };
  return { calls, worker, observer };
}

/** A started queue on a fake clock, processing through a {@link gate}. */
function running(options: Omit<WorkQueueOptions<Keyed, string>, "clock">): { clock: FakeClock; queue: WorkQueue<Keyed, string>; calls: Call[] } {
  const clock = new FakeClock();
  const { calls, worker, observer } = gate();
  const queue = new WorkQueue<Keyed, string>({ ...options, clock, observer: both(observer, options.observer) });
  queue.start(worker);
  return { clock, queue, calls };
}

/** Tells both observers (the second when given). */
function both(first: QueueObserver<Keyed>, second: QueueObserver<Keyed> | undefined): QueueObserver<Keyed> {
  if (!second) return first;
  return {
    add: (key) => (second.add(key), first.add(key)),
    get: (key) => (second.get(key), first.get(key)),
    done: (key, outcome) => (second.done(key, outcome), first.done(key, outcome)),
    retry: (key) => (second.retry(key), first.retry(key)),
  };
}

test("a key added many times while waiting is processed once, with every item", async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<Keyed, string>({ concurrency: 4, clock });
  const { calls, worker } = gate();
  queue.add(k("a"), "1");
  queue.add(k("a"), "2");
  queue.add(k("a"), "3");
  queue.start(worker);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0]?.items, ["1", "2", "3"]);
});

test("a key is never processed twice at once; added while in flight, it runs again after", async () => {
  const { queue, calls } = running({ concurrency: 4 });
  queue.add(k("a"), "1");
  queue.add(k("a"), "2");
  assert.equal(calls.length, 1, "no second call while the first is in flight");
  await calls[0]?.release({ kind: "done" });
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[1]?.items, ["2"]);
});

test("concurrency bounds the keys in flight", async () => {
  const { queue, calls } = running({ concurrency: 2 });
  for (const key of ["a", "b", "c", "d"]) queue.add(k(key));
  assert.deepEqual(calls.map((c) => c.key), ["a", "b"]);
  assert.equal(queue.inFlight, 2);
  assert.equal(queue.depth, 2);
  await calls[0]?.release({ kind: "done" });
  assert.deepEqual(calls.map((c) => c.key), ["a", "b", "c"]);
});

test("failures back off per key exponentially, keep their items, and reset on success", async () => {
  const { clock, queue, calls } = running({ concurrency: 1, baseDelayMs: 10, maxDelayMs: 40 });
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => queue.backoff(n)), [10, 20, 40, 40, 40]);
  queue.add(k("a"), "x");
  await calls[0]?.release({ kind: "retry" });
  await clock.advance(9);
  assert.equal(calls.length, 1, "not before 10 ms");
  await clock.advance(1);
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[1]?.items, ["x"], "the triggers are kept for the retry");
  await calls[1]?.release({ kind: "retry" });
  await clock.advance(19);
  assert.equal(calls.length, 2, "second failure waits 20 ms");
  await clock.advance(1);
  assert.equal(calls.length, 3);
  await calls[2]?.release({ kind: "done" });
  queue.add(k("a"));
  await calls[3]?.release({ kind: "retry" });
  await clock.advance(10);
  assert.equal(calls.length, 5, "after a success the backoff starts again at 10 ms");
});

test("a retry honours a longer Retry-After", async () => {
  const { clock, queue, calls } = running({ concurrency: 1, baseDelayMs: 10 });
  queue.add(k("a"));
  await calls[0]?.release({ kind: "retry", afterMs: 500 });
  await clock.advance(499);
  assert.equal(calls.length, 1);
  await clock.advance(1);
  assert.equal(calls.length, 2);
});

test("requeueAfter runs the key again later; a new add runs it at once", async () => {
  const { clock, queue, calls } = running({ concurrency: 1 });
  queue.add(k("a"));
  await calls[0]?.release({ kind: "done", requeueAfterMs: 1_000 });
  await clock.advance(999);
  assert.equal(calls.length, 1);
  await clock.advance(1);
  assert.equal(calls.length, 2);
  await calls[1]?.release({ kind: "done", requeueAfterMs: 1_000 });
  queue.add(k("a"), "event");
  assert.equal(calls.length, 3, "an event does not wait for the requeue");
  assert.equal(clock.now(), 1_000);
});

test("a key made dirty while in flight runs again at once, even when that run asked for a requeue", async () => {
  const { clock, queue, calls } = running({ concurrency: 1 });
  queue.add(k("a"), "first");
  queue.add(k("a"), "meanwhile");
  await calls[0]?.release({ kind: "done", requeueAfterMs: 6_000 });
  assert.equal(calls.length, 2, "the change that arrived meanwhile is not held back by the requeue");
  assert.deepEqual(calls[1]?.items, ["meanwhile"]);
  assert.equal(clock.now(), 0);
});

test("the token bucket bounds the overall rate", async () => {
  const { clock, queue, processed } = rateLimited();
  for (let i = 0; i < 6; i++) queue.add(k(`k${i}`));
  assert.equal(processed(), 2, "the burst");
  await clock.advance(100);
  assert.equal(processed(), 3, "one token per 100 ms");
  await clock.advance(300);
  assert.equal(processed(), 6);
});

test("a thrown error counts as a retry; stop waits for in-flight keys and cancels delays", async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<Keyed, string>({ concurrency: 1, clock, baseDelayMs: 10 });
  let attempts = 0;
  queue.start({
    process: async () => {
      attempts++;
      throw new Error("boom");
    },
  });
  queue.add(k("a"));
  await clock.advance(10);
  assert.equal(attempts, 2);
  await queue.stop();
  await clock.advance(1_000);
  assert.equal(attempts, 2, "nothing runs after stop");
  assert.equal(clock.pending, 0);
  queue.add(k("b"));
  assert.equal(attempts, 2, "adds after stop are ignored");
});

test("depth counts every key waiting: ready, backing off, requeued for later, dirty while in flight; retrying counts the backing off", async () => {
  const { queue, calls } = running({ concurrency: 2, baseDelayMs: 1_000 });
  for (const key of ["failing", "requeued", "busy", "ready"]) queue.add(k(key));
  assert.deepEqual(calls.map((c) => c.key), ["failing", "requeued"]);
  await Promise.all([calls[0]?.release({ kind: "retry" }), calls[1]?.release({ kind: "done", requeueAfterMs: 60_000 })]);
  // "busy" and "ready" took the freed slots; "busy" is made dirty again while in flight.
  assert.deepEqual(calls.map((c) => c.key), ["failing", "requeued", "busy", "ready"]);
  queue.add(k("busy"));
  queue.add(k("waiting"));
  assert.equal(queue.depth, 4, "failing (backoff), requeued (later), busy (dirty in flight), waiting (ready)");
  assert.equal(queue.retrying, 1);
  assert.equal(queue.inFlight, 2);
});

test("batched adds: a burst waits out the batch period and is processed once with every item; an immediate add does not wait", async () => {
  const { clock, queue, calls } = running({ concurrency: 4 });
  queue.addBatched(k("job"), "pod-1 added", 500);
  await clock.advance(200);
  queue.addBatched(k("job"), "pod-2 added", 500);
  assert.equal(calls.length, 0, "nothing before the period the first change started");
  await clock.advance(300);
  assert.deepEqual(calls.map((c) => c.items), [["pod-1 added", "pod-2 added"]]);
  await calls[0]?.release({ kind: "done" });
  queue.addBatched(k("job"), "pod-3 added", 500);
  queue.add(k("job"), "pod-4 deleted");
  assert.deepEqual(calls[1]?.items, ["pod-3 added", "pod-4 deleted"], "a deletion is not held back, and takes the batch along");
  await calls[1]?.release({ kind: "done" });
  await clock.advance(1_000);
  assert.equal(calls.length, 2, "the batched change was already processed: nothing runs again");
});

test("batched changes that arrive while their key is in flight still wait out the batch; an immediate add among them does not", async () => {
  const { clock, queue, calls } = running({ concurrency: 4 });
  queue.add(k("node"), "first");
  await clock.advance(100);
  queue.addBatched(k("node"), "pod-1 changed", 500);
  await clock.advance(100);
  queue.addBatched(k("node"), "pod-2 changed", 500);
  await calls[0]?.release({ kind: "done" });
  assert.equal(calls.length, 1, "done 400 ms before the first batched change is due: not run at once");
  await clock.advance(399);
  assert.equal(calls.length, 1);
  await clock.advance(1);
  assert.deepEqual(calls[1]?.items, ["pod-1 changed", "pod-2 changed"], "one run for the burst, when its first change is due");
  queue.addBatched(k("node"), "pod-3 changed", 500);
  queue.add(k("node"), "pod-4 deleted");
  await calls[1]?.release({ kind: "done", requeueAfterMs: 10_000 });
  assert.deepEqual(calls[2]?.items, ["pod-3 changed", "pod-4 deleted"], "a deletion while in flight runs again at once, taking the batch along");
  await calls[2]?.release({ kind: "done" });
  await clock.advance(1_000);
  assert.equal(calls.length, 3, "nothing left to run");
});

test("a batched change whose batch came due while its key was in flight runs as soon as the key is done", async () => {
  const { clock, queue, calls } = running({ concurrency: 4 });
  queue.add(k("node"), "first");
  queue.addBatched(k("node"), "pod changed", 100);
  await clock.advance(500);
  await calls[0]?.release({ kind: "done" });
  assert.deepEqual(calls[1]?.items, ["pod changed"]);
});

/** An observer writing each call as `hook key` (with the outcome's kind for done), with the fake clock's time. */
function observed(clock: FakeClock): { observer: QueueObserver<Keyed>; calls: string[] } {
  const calls: string[] = [];
  const log = (line: string): void => void calls.push(`${clock.now()} ${line}`);
  return {
    calls,
    observer: {
      add: (key) => log(`add ${key.id}`),
      get: (key) => log(`get ${key.id}`),
      done: (key, outcome) => log(`done ${key.id} ${outcome.kind}`),
      retry: (key) => log(`retry ${key.id}`),
    },
  };
}

test("the observer hears add, get, done and retry where client-go's workqueue calls its metrics", async () => {
  const clock = new FakeClock();
  const { observer, calls } = observed(clock);
  const { calls: runs, worker, observer: handled } = gate();
  const queue = new WorkQueue<Keyed, string>({ concurrency: 1, clock, observer: both(handled, observer), baseDelayMs: 100 });
  queue.start(worker);
  queue.add(k("a"));
  queue.add(k("b"));
  await clock.advance(10);
  await runs[0]?.release({ kind: "retry" });
  await clock.advance(10);
  await runs[1]?.release({ kind: "done", requeueAfterMs: 1_000 });
  // a comes back after its 100 ms backoff; b after its 1 s requeue.
  await clock.advance(100);
  await runs[2]?.release({ kind: "done" });
  await clock.advance(1_000);
  await runs[3]?.release({ kind: "done" });
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
  const { calls: runs, worker, observer: handled } = gate();
  const queue = new WorkQueue<Keyed, string>({ concurrency: 1, clock, observer: both(handled, observer) });
  queue.start(worker);
  queue.add(k("a"));
  queue.add(k("a"));
  queue.addBatched(k("b"), "x", 50);
  await runs[0]?.release({ kind: "done" });
  await clock.advance(50);
  assert.deepEqual(calls, ["0 add a", "0 get a", "0 add a", "0 done a done", "0 add a", "0 get a", "50 add b"]);
});

test("retryFailedNow runs keys backing off at once with their backoff reset, but not one told to wait by the server", async () => {
  const { clock, queue, calls } = running({ concurrency: 2, baseDelayMs: 1_000, maxDelayMs: 30_000 });
  queue.add(k("a"), "x");
  queue.add(k("b"), "y");
  await Promise.all([calls[0]?.release({ kind: "retry" }), calls[1]?.release({ kind: "retry", afterMs: 5_000 })]);
  assert.equal(queue.retryFailedNow(), 1);
  await clock.advance(0);
  assert.deepEqual(calls.slice(2).map((c) => [c.key, c.items]), [["a", ["x"]]], "a at once with its items; b still waits");
  await calls[2]?.release({ kind: "retry" });
  await clock.advance(999);
  assert.equal(calls.length, 3, "a's backoff starts again at the base delay");
  await clock.advance(1);
  assert.equal(calls.at(-1)?.key, "a");
  await clock.advance(4_000);
  assert.equal(calls.at(-1)?.key, "b", "b after the 5 s it was told");
});

/** A {@link FakeClock} whose `now` can be stepped like a wall clock (NTP, an operator) while its timers keep real elapsed time. */
class SteppedClock extends FakeClock {
  #offset = 0;
  override now(): number {
    return super.now() + this.#offset;
  }
  step(ms: number): void {
    this.#offset += ms;
  }
}

/** A started queue with a token bucket of 10/s, burst 2, on a clock that can be stepped, counting what it processed. */
function rateLimited(): { clock: SteppedClock; queue: WorkQueue<Keyed, string>; processed: () => number } {
  const clock = new SteppedClock();
  const queue = new WorkQueue<Keyed, string>({ concurrency: 100, clock, ratePerSecond: 10, burst: 2 });
  let processed = 0;
  queue.start({
    process: async () => {
      processed++;
      return { kind: "done" };
    },
  });
  return { clock, queue, processed: () => processed };
}

test("a clock stepped back 120 s does not stall the token bucket (issue 28, finding 4)", async () => {
  const { clock, queue, processed } = rateLimited();
  for (let i = 0; i < 6; i++) queue.add(k(`k${i}`));
  assert.equal(processed(), 2, "the burst");
  clock.step(-120_000);
  await clock.advance(100);
  assert.equal(processed(), 3, "one token per 100 ms of elapsed time, not 120 s later");
  await clock.advance(300);
  assert.equal(processed(), 6);
});

test("a clock stepped forward 120 s refills the token bucket by its burst at most (issue 28, finding 4)", async () => {
  const { clock, queue, processed } = rateLimited();
  for (let i = 0; i < 10; i++) queue.add(k(`k${i}`));
  assert.equal(processed(), 2, "the burst");
  clock.step(120_000);
  await clock.advance(100);
  assert.equal(processed(), 5, "a step forward reads as elapsed time: the bucket full again (2) and one token per 100 ms, never more");
  await clock.advance(100);
  assert.equal(processed(), 6, "then one token per 100 ms again");
});

test("the system clock of the queue is monotonic: a step of Date.now moves it not (issue 28, finding 4)", (t) => {
  const wall = Date.now;
  t.after(() => (Date.now = wall));
  const before = systemClock.now();
  Date.now = () => wall() - 120_000;
  const afterBack = systemClock.now();
  Date.now = () => wall() + 120_000;
  const afterForward = systemClock.now();
  assert.ok(afterBack >= before && afterBack - before < 1_000, `stepped back by ${before - afterBack} ms`);
  assert.ok(afterForward - afterBack < 1_000, `stepped forward by ${afterForward - afterBack} ms`);
});

test("a key failing through a long outage holds what compact keeps, not every event, and what is dropped on purpose is counted", async () => {
  const dropped: Record<string, number> = {};
  // Items "object:version": compact keeps the last version of each object.
  const compact = (items: string[]): string[] => {
    const last = new Map(items.map((item) => [item.split(":")[0] ?? "", item]));
    return [...last.values()];
  };
  const { clock, queue, calls } = running({ concurrency: 1, baseDelayMs: 10, maxDelayMs: 40, compact, dropped: (reason, count) => void (dropped[reason] = (dropped[reason] ?? 0) + count) });
  queue.add(k("a"), "pod-0:0");
  for (let round = 1; round <= 50; round += 1) {
    // While its run waits on the Worker, each of its 4 pods changes: 200 events over the outage.
    for (let pod = 0; pod < 4; pod += 1) queue.add(k("a"), `pod-${pod}:${round}`);
    await calls.at(-1)?.release({ kind: "retry" });
    await clock.advance(40);
  }
  const held = calls.at(-1)?.items ?? [];
  assert.ok(held.length <= 64, `the key holds ${held.length} items after 200 events`);
  assert.deepEqual(compact(held).sort(), ["pod-0:50", "pod-1:50", "pod-2:50", "pod-3:50"], "the last change of each object is kept");
  assert.ok((dropped["repeated-event"] ?? 0) > 100, `dropped ${dropped["repeated-event"] ?? 0} repeated events`);
  assert.ok((dropped["duplicate-key"] ?? 0) > 0, "adds of a key already waiting are counted");
});
