/**
 * The work queue's handler: one queue key is delivered to the Worker (a snapshot, or an
 * events controller's batch), the plan applied, and the outcome decided: done, retry
 * (the plan was interrupted, or the Worker failed) with the Worker's Retry-After.
 */
import { splitKey, type Action, type ControllerManifest, type Manifest, type Trigger } from "../../protocol/index.ts";
import type { PlanApplier } from "../apply/applier.ts";
import type { Logger } from "../../cli/log.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { Outcome } from "../queue/workqueue.ts";
import { parentIsNamespaced } from "../../protocol/snapshot/mapping.ts";
import type { ScopeGuard } from "../apply/guard.ts";
import type { Scope } from "../apply/scope.ts";
import { WorkerError } from "./worker-client.ts";
import type { EventsDelivery } from "./events.ts";
import { EVENTS_KEY, splitQueueKey } from "../queue/key.ts";
import type { SnapshotDelivery } from "./snapshots.ts";
import { compactTriggers } from "./triggers.ts";

/** What processing a key uses. */
export interface ProcessDeps {
  readonly manifest: () => Manifest;
  readonly snapshots: SnapshotDelivery;
  readonly events: EventsDelivery;
  readonly applier: PlanApplier;
  /** Drops (and reports) the actions outside the controller's declared scope. */
  readonly guard: ScopeGuard;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Told whether the Worker answered (readiness). */
  readonly workerReached: (ok: boolean) => void;
}

/** Processes one queue key: deliver, apply, decide. */
export async function processKey(deps: ProcessDeps, queued: string, triggers: Trigger[]): Promise<Outcome> {
  const { controller: name, key } = splitQueueKey(queued);
  const controller = deps.manifest().controllers.find((c) => c.name === name);
  if (!controller) return { kind: "done" };
  const started = performance.now();
  try {
    // Triggers compacted here, not as they accumulate: a retry hands the queue back the same ones.
    const delivered = key === EVENTS_KEY ? await deps.events.send(controller) : await deps.snapshots.send(controller, key, compactTriggers(triggers));
    const answered = performance.now();
    deps.workerReached(true);
    const { parent } = delivered;
    const plan = await deps.guard.filter(delivered.plan, controller, scopeOf(controller, key), parent);
    const onError = (action: Action, error: Error): void => {
      deps.metrics.inc(`edgeloop_apply_errors_total{controller="${name}",action="${action.type}"}`);
      deps.log("warn", "action failed for good", { controller: name, key, action: action.type, error: error.message });
    };
    const result = await deps.applier.apply(plan, parent, { onError, onStatusWrite: (target) => deps.snapshots.ownWrites.sending(target) });
    if (!result.ok) {
      await releaseClaims(deps, name, key, result.unapplied);
      deps.metrics.inc(`edgeloop_reconciles_total{controller="${name}",result="retry"}`);
      deps.log("debug", "plan interrupted, will retry", { controller: name, key, error: result.error });
      // Not before the API server said to (its Retry-After, when the client's own retries ran out).
      return { kind: "retry", ...(result.retryAfterMs ? { afterMs: result.retryAfterMs } : {}) };
    }
    const done = performance.now();
    deps.log("debug", "plan applied", { controller: name, key, ...(delivered.events === undefined ? {} : { events: delivered.events }), actions: plan.actions.length, workerMs: Math.round(answered - started), applyMs: Math.round(done - answered) });
    deps.metrics.observe(name, (done - started) / 1000);
    deps.metrics.inc(`edgeloop_reconciles_total{controller="${name}",result="ok"}`);
    return { kind: "done", ...(plan.requeueAfterSeconds ? { requeueAfterMs: plan.requeueAfterSeconds * 1000 } : {}) };
  } catch (error) {
    deps.metrics.inc(`edgeloop_reconciles_total{controller="${name}",result="error"}`);
    return failed(deps, controller, key, error);
  }
}

/** A namespaced parent's plan stays in the key's namespace; other plans are bounded by kinds alone. */
function scopeOf(controller: ControllerManifest, key: string): Scope {
  if (key === EVENTS_KEY || !parentIsNamespaced(controller)) return {};
  return { namespace: splitKey(key).namespace };
}

/**
 * Hands the claim tokens of the actions not applied back to the Worker before the retry,
 * so the retry's reconcile is granted them again (a 409 storm then delays no
 * replacement past the next retry). If this fails, the claims expire as before.
 */
async function releaseClaims(deps: ProcessDeps, controller: string, key: string, unapplied: readonly Action[]): Promise<void> {
  const claims = unapplied.flatMap((action) => (action.release ? [action.release] : []));
  if (claims.length === 0) return;
  try {
    await deps.snapshots.releaseClaims(claims);
  } catch (error) {
    deps.log("warn", "claim release failed; the claims expire instead", { controller, key, error: String(error) });
  }
}

/**
 * Worker answers that no retry can change: the snapshot itself is refused (malformed,
 * too large, too deep). Retrying would loop forever on the same bytes; the parent's next
 * change or the periodic resync sends a new snapshot instead.
 */
const PERMANENT_REFUSALS: ReadonlySet<number> = new Set([400, 413, 422]);

/** A delivery that threw: retried (after the Worker's Retry-After when it gave one), or, refused for good, reported on the parent. */
async function failed(deps: ProcessDeps, controller: ControllerManifest, key: string, error: unknown): Promise<Outcome> {
  const name = controller.name;
  if (error instanceof WorkerError) {
    if (error.status === 0) deps.workerReached(false);
    if (PERMANENT_REFUSALS.has(error.status) && key !== EVENTS_KEY) return refused(deps, controller, key, error);
    deps.log(error.status === 0 ? "warn" : "error", "worker call failed", { controller: name, key, status: error.status, error: error.message });
    return { kind: "retry", ...(error.retryAfterMs ? { afterMs: error.retryAfterMs } : {}) };
  }
  deps.log("error", "reconcile failed", { controller: name, key, error: String(error) });
  return { kind: "retry" };
}

/**
 * A snapshot the Worker refused for good: a Warning Event `ReconcileRefused` on the parent
 * carrying the Worker's answer (it names the field), a metric, and no retry. Events
 * batches are never dropped this way: their events would be lost.
 */
async function refused(deps: ProcessDeps, controller: ControllerManifest, key: string, error: WorkerError): Promise<Outcome> {
  deps.workerReached(true);
  deps.metrics.inc(`edgeloop_reconciles_total{controller="${controller.name}",result="refused"}`);
  deps.log("warn", "the Worker refused the snapshot; not retried until the parent changes", { controller: controller.name, key, status: error.status, error: error.message });
  if (!controller.parent) return { kind: "done", terminal: true };
  const { namespace, name } = splitKey(key);
  const target = { ...controller.parent, name, ...(namespace ? { namespace } : {}) };
  const message = `the Worker refused the snapshot of ${key}: ${error.message}`.slice(0, 1024);
  await deps.applier.applyOne({ type: "event", target, eventType: "Warning", reason: "ReconcileRefused", message }).catch((e: unknown) => deps.log("warn", "could not record the refusal", { controller: controller.name, key, error: String(e) }));
  return { kind: "done", terminal: true };
}
