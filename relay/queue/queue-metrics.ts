/**
 * client-go's workqueue metrics (k8s.io/client-go/util/workqueue/metrics.go) and
 * controller-runtime's reconcile metrics, kept from what the work queue tells its
 * {@link QueueObserver}. The relay has one queue for every controller: each key names
 * its controller (`name` of the series), so each controller reads as if it had its own
 * queue, as under controller-runtime. Pure: time comes from an injected clock, numbers go
 * to a {@link QueueMetricsSink}; no metrics library here.
 */
import type { Outcome, QueueObserver } from "./workqueue.ts";

/** controller-runtime's `result` label of `controller_runtime_reconcile_total`. */
export type ReconcileResult = "success" | "error" | "requeue" | "requeue_after";

/** Every result, for series that start at 0 (controller-runtime initialises them so). */
export const RECONCILE_RESULTS: readonly ReconcileResult[] = ["success", "error", "requeue", "requeue_after"];

/** Where the numbers go (client-go's MetricsProvider and controller-runtime's counters, by name). */
export interface QueueMetricsSink {
  /** A controller seen for the first time: its series start at 0. */
  named(name: string): void;
  /** `workqueue_depth` moved by `delta`. */
  depth(name: string, delta: 1 | -1): void;
  /** `workqueue_adds_total` + 1. */
  added(name: string): void;
  /** `workqueue_queue_duration_seconds`: from add to get. */
  queued(name: string, seconds: number): void;
  /** `workqueue_work_duration_seconds`: from get to done. */
  worked(name: string, seconds: number): void;
  /** `workqueue_retries_total` + 1. */
  retried(name: string): void;
  /** `controller_runtime_reconcile_total`, `_errors_total` and `_time_seconds`. */
  reconciled(name: string, result: ReconcileResult, seconds: number): void;
}

/** In-progress work of one controller (client-go's `updateUnfinishedWork`). */
export interface UnfinishedWork {
  /** `workqueue_unfinished_work_seconds`: the ages of every key in flight, summed. */
  readonly unfinishedSeconds: number;
  /** `workqueue_longest_running_processor_seconds`: the oldest key in flight's age. */
  readonly longestSeconds: number;
}

/** What the metrics read of a queue key: its identity and the controller it belongs to. */
export interface ControllerKey {
  readonly id: string;
  readonly controller: string;
}

/** controller-runtime's result for a queue outcome. */
export function reconcileResult(outcome: Outcome): ReconcileResult {
  if (outcome.kind === "retry" || outcome.terminal) return "error";
  return outcome.requeueAfterMs !== undefined && outcome.requeueAfterMs > 0 ? "requeue_after" : "success";
}

/** The observer keeping the metrics, per controller. */
export class WorkQueueMetrics implements QueueObserver<ControllerKey> {
  readonly #sink: QueueMetricsSink;
  readonly #now: () => number;
  /** Keys (by id) added and not yet taken, with when (client-go's `addTimes`: its dirty set). */
  readonly #addTimes = new Map<string, number>();
  /** Keys in flight, with their controller and when they were taken (client-go's `processingStartTimes`). */
  readonly #startTimes = new Map<string, { readonly controller: string; readonly at: number }>();
  readonly #names = new Set<string>();

  /** `now`: milliseconds, monotonic (default `performance.now()`). */
  constructor(sink: QueueMetricsSink, now: () => number = () => performance.now()) {
    this.#sink = sink;
    this.#now = now;
  }

  add(key: ControllerKey): void {
    // Told again while it waits: client-go counts an add only when the key was not dirty.
    if (this.#addTimes.has(key.id)) return;
    const name = this.#name(key);
    this.#addTimes.set(key.id, this.#now());
    this.#sink.added(name);
    this.#sink.depth(name, 1);
  }

  get(key: ControllerKey): void {
    const name = this.#name(key);
    const now = this.#now();
    this.#startTimes.set(key.id, { controller: name, at: now });
    const added = this.#addTimes.get(key.id);
    if (added === undefined) return;
    this.#addTimes.delete(key.id);
    this.#sink.depth(name, -1);
    this.#sink.queued(name, seconds(now - added));
  }

  done(key: ControllerKey, outcome: Outcome): void {
    const started = this.#startTimes.get(key.id);
    if (started === undefined) return;
    this.#startTimes.delete(key.id);
    const name = this.#name(key);
    const took = seconds(this.#now() - started.at);
    this.#sink.worked(name, took);
    this.#sink.reconciled(name, reconcileResult(outcome), took);
  }

  retry(key: ControllerKey): void {
    this.#sink.retried(this.#name(key));
  }

  /** Every controller seen, with the age of its work in flight now (zero when idle). */
  unfinished(): Map<string, UnfinishedWork> {
    const now = this.#now();
    const work = new Map<string, { unfinishedSeconds: number; longestSeconds: number }>();
    for (const name of this.#names) work.set(name, { unfinishedSeconds: 0, longestSeconds: 0 });
    for (const { controller, at } of this.#startTimes.values()) {
      const age = seconds(now - at);
      const entry = work.get(controller);
      if (!entry) continue;
      entry.unfinishedSeconds += age;
      entry.longestSeconds = Math.max(entry.longestSeconds, age);
    }
    return work;
  }

  #name(key: ControllerKey): string {
    const name = key.controller;
    if (!this.#names.has(name)) {
      this.#names.add(name);
      this.#sink.named(name);
    }
    return name;
  }
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}
