import assert from "node:assert/strict";
import { test } from "node:test";
import { parentQueueKey as key } from "./key.ts";
import { reconcileResult, WorkQueueMetrics, type QueueMetricsSink } from "./queue-metrics.ts";

/** A sink writing each call as one line. */
function recording(): { sink: QueueMetricsSink; calls: string[] } {
  const calls: string[] = [];
  const sink: QueueMetricsSink = {
    named: (name) => calls.push(`named ${name}`),
    depth: (name, delta) => calls.push(`depth ${name} ${delta}`),
    added: (name) => calls.push(`added ${name}`),
    queued: (name, s) => calls.push(`queued ${name} ${s}`),
    worked: (name, s) => calls.push(`worked ${name} ${s}`),
    retried: (name) => calls.push(`retried ${name}`),
    reconciled: (name, result, s) => calls.push(`reconciled ${name} ${result} ${s}`),
  };
  return { sink, calls };
}

function metricsAt(): { metrics: WorkQueueMetrics; calls: string[]; at: (ms: number) => void } {
  let now = 0;
  const { sink, calls } = recording();
  const metrics = new WorkQueueMetrics(sink, () => now);
  return { metrics, calls, at: (ms) => void (now = ms) };
}

test("an add counts once until the key is taken, as client-go's dirty set; latency is add to get, work is get to done", () => {
  const { metrics, calls, at } = metricsAt();
  metrics.add(key("c", "a"));
  at(5);
  metrics.add(key("c", "a"));
  at(30);
  metrics.get(key("c", "a"));
  at(80);
  metrics.done(key("c", "a"), { kind: "done" });
  assert.deepEqual(calls, ["named c", "added c", "depth c 1", "depth c -1", "queued c 0.03", "worked c 0.05", "reconciled c success 0.05"]);
});

test("added again while in flight: counted again, and the earlier processing's time is unaffected", () => {
  const { metrics, calls, at } = metricsAt();
  metrics.add(key("c", "a"));
  metrics.get(key("c", "a"));
  at(10);
  metrics.add(key("c", "a"));
  at(30);
  metrics.done(key("c", "a"), { kind: "done" });
  metrics.get(key("c", "a"));
  assert.deepEqual(calls.slice(5), ["added c", "depth c 1", "worked c 0.03", "reconciled c success 0.03", "depth c -1", "queued c 0.02"]);
});

test("unfinished work: summed and longest ages of the keys in flight, per controller; zero for an idle one", () => {
  const { metrics, at } = metricsAt();
  for (const queued of [key("c", "a"), key("c", "b"), key("d", "x")]) metrics.add(queued);
  metrics.get(key("c", "a"));
  at(1_000);
  metrics.get(key("c", "b"));
  metrics.get(key("d", "x"));
  metrics.done(key("d", "x"), { kind: "retry" });
  at(3_000);
  assert.deepEqual(Object.fromEntries(metrics.unfinished()), { c: { unfinishedSeconds: 5, longestSeconds: 3 }, d: { unfinishedSeconds: 0, longestSeconds: 0 } });
});

test("retries are counted per controller; results follow controller-runtime", () => {
  const { metrics, calls } = metricsAt();
  metrics.retry(key("c", "a"));
  assert.deepEqual(calls, ["named c", "retried c"]);
  assert.equal(reconcileResult({ kind: "done" }), "success");
  assert.equal(reconcileResult({ kind: "done", requeueAfterMs: 0 }), "success");
  assert.equal(reconcileResult({ kind: "done", requeueAfterMs: 5_000 }), "requeue_after");
  assert.equal(reconcileResult({ kind: "retry" }), "error");
  assert.equal(reconcileResult({ kind: "retry", afterMs: 1_000 }), "error");
  assert.equal(reconcileResult({ kind: "done", terminal: true }), "error");
});

test("a done or get for a key never seen changes nothing", () => {
  const { metrics, calls } = metricsAt();
  metrics.done(key("c", "a"), { kind: "done" });
  assert.deepEqual(calls, []);
  metrics.get(key("c", "a"));
  assert.deepEqual(calls, ["named c"]);
});
