/**
 * The work queue's worker: one queue key is delivered to the Worker (a snapshot, or an
 * events controller's batch), the plan handed to the apply stage (`apply/guard.ts`, then
 * `apply/applier.ts`), and the outcome decided: done, or retry (the plan was interrupted,
 * or the Worker failed) with the Worker's Retry-After. A snapshot the Worker refuses for
 * good is reported on its parent instead of retried.
 */
import { isPermanent, splitKey, StatusError, type Action, type ControllerManifest } from "../../protocol/index.ts";
import { parentIsNamespaced } from "../../protocol/snapshot/mapping.ts";
import type { Logger } from "../../cli/log.ts";
import type { EventRecorder } from "../apply/applier.ts";
import type { PlanSink } from "../apply/guard.ts";
import type { ApplyTarget } from "../apply/listener.ts";
import type { Scope } from "../apply/scope.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { QueueKey } from "../queue/key.ts";
import type { KeyWorker, Outcome } from "../queue/workqueue.ts";
import type { EventsDelivery } from "./events.ts";
import type { ManifestSource } from "./manifest.ts";
import { parentRef, type Delivered, type SnapshotDelivery } from "./snapshots.ts";
import type { QueuedTrigger } from "./triggers.ts";
import { workerAway, type WorkerClient } from "./worker-client.ts";
import type { WorkerHealth } from "./worker-health.ts";

/** What processing a key uses. */
export interface ReconcilerDeps {
  readonly manifests: ManifestSource;
  readonly snapshots: Pick<SnapshotDelivery, "send">;
  readonly events: Pick<EventsDelivery, "send">;
  /** The apply stage: the scope guard, then the applier. */
  readonly plans: PlanSink;
  /** Records a refused snapshot's `ReconcileRefused` Event. */
  readonly recorder: EventRecorder;
  /** Hands back the claim tokens of actions not applied. */
  readonly claims: Pick<WorkerClient, "releaseClaims">;
  /** Told whether the Worker answered (readiness). */
  readonly health: Pick<WorkerHealth, "reached">;
  readonly metrics: Metrics;
  readonly log: Logger;
}

/** The key as logs name it: the parent key, or `events` for an events controller's batch. */
function keyText(key: QueueKey): string {
  return key.delivery === "snapshot" ? key.parent : "events";
}

/** Processes queue keys: deliver, apply, decide. */
export class Reconciler implements KeyWorker<QueueKey, QueuedTrigger> {
  readonly #deps: ReconcilerDeps;

  constructor(deps: ReconcilerDeps) {
    this.#deps = deps;
  }

  async process(key: QueueKey, triggers: QueuedTrigger[]): Promise<Outcome> {
    const controller = this.#deps.manifests.manifest.controllers.find((c) => c.name === key.controller);
    if (!controller) return { kind: "done" };
    const started = performance.now();
    let delivered: Delivered;
    try {
      delivered = await this.#deliver(controller, key, triggers);
    } catch (error) {
      this.#deps.metrics.inc("edgeloop_reconciles_total", { controller: controller.name, result: "error" });
      return this.#deliveryFailed(controller, key, error);
    }
    this.#deps.health.reached(true);
    try {
      return await this.#apply(controller, key, delivered, started);
    } catch (error) {
      this.#deps.metrics.inc("edgeloop_reconciles_total", { controller: controller.name, result: "error" });
      this.#deps.log("error", "reconcile failed", { controller: controller.name, key: keyText(key), error: String(error) });
      return { kind: "retry" };
    }
  }

  /** Hands the Worker's plan to the apply stage, and decides from how far it got. */
  async #apply(controller: ControllerManifest, key: QueueKey, delivered: Delivered, started: number): Promise<Outcome> {
    const { metrics, log } = this.#deps;
    const name = controller.name;
    const answered = performance.now();
    const target: ApplyTarget = { parent: delivered.parent, controller: name, key: keyText(key) };
    const result = await this.#deps.plans.apply(delivered.plan, { controller, scope: scopeOf(controller, key), target });
    if (!result.ok) {
      await this.#releaseClaims(name, key, result.unapplied);
      metrics.inc("edgeloop_reconciles_total", { controller: name, result: "retry" });
      log("debug", "plan interrupted, will retry", { controller: name, key: keyText(key), error: result.error });
      // Not before the API server said to (its Retry-After, when the client's own retries ran out).
      return { kind: "retry", ...(result.retryAfterMs ? { afterMs: result.retryAfterMs } : {}) };
    }
    const done = performance.now();
    log("debug", "plan applied", { controller: name, key: keyText(key), ...(delivered.events === undefined ? {} : { events: delivered.events }), actions: delivered.plan.actions.length, workerMs: Math.round(answered - started), applyMs: Math.round(done - answered) });
    metrics.observe(name, (done - started) / 1000);
    metrics.inc("edgeloop_reconciles_total", { controller: name, result: "ok" });
    return { kind: "done", ...(delivered.plan.requeueAfterSeconds ? { requeueAfterMs: delivered.plan.requeueAfterSeconds * 1000 } : {}) };
  }

  #deliver(controller: ControllerManifest, key: QueueKey, triggers: readonly QueuedTrigger[]): Promise<Delivered> {
    return key.delivery === "events" ? this.#deps.events.send(controller) : this.#deps.snapshots.send(controller, key.parent, triggers);
  }

  /**
   * Hands the claim tokens of the actions not applied back to the Worker before the retry,
   * so the retry's reconcile is granted them again (a 409 storm then delays no
   * replacement past the next retry). If this fails, the claims expire as before.
   */
  async #releaseClaims(controller: string, key: QueueKey, unapplied: readonly Action[]): Promise<void> {
    const claims = unapplied.flatMap((action) => (action.release ? [action.release] : []));
    if (claims.length === 0) return;
    try {
      await this.#deps.claims.releaseClaims(claims);
    } catch (error) {
      this.#deps.log("warn", "claim release failed; the claims expire instead", { controller, key: keyText(key), error: String(error) });
    }
  }

  /**
   * A delivery that threw: retried (after the Worker's Retry-After when it gave one), or,
   * refused for good (`isPermanent`: the snapshot itself is malformed, too large, too
   * deep, of a controller the Worker does not know), reported on the parent. Retrying
   * would loop forever on the same bytes; the parent's next change or the periodic resync
   * sends a new snapshot instead. Events batches are never dropped so: their events would be lost.
   */
  async #deliveryFailed(controller: ControllerManifest, key: QueueKey, error: unknown): Promise<Outcome> {
    const log = this.#deps.log;
    if (!(error instanceof StatusError)) {
      log("error", "reconcile failed", { controller: controller.name, key: keyText(key), error: String(error) });
      return { kind: "retry" };
    }
    if (workerAway(error)) this.#deps.health.reached(false);
    if (isPermanent(error) && key.delivery === "snapshot") return this.#refused(controller, key.parent, error);
    // The Worker away is one line (worker unreachable) and a gauge, not a line per key and retry.
    log(workerAway(error) ? "debug" : "error", "worker call failed", { controller: controller.name, key: keyText(key), status: error.status, error: error.message });
    return { kind: "retry", ...(error.retryAfterMs ? { afterMs: error.retryAfterMs } : {}) };
  }

  /**
   * A snapshot the Worker refused for good: a Warning Event `ReconcileRefused` on the parent
   * carrying the Worker's answer (it names the field), a metric, and no retry.
   */
  async #refused(controller: ControllerManifest, parent: string, error: StatusError): Promise<Outcome> {
    const { health, metrics, log, recorder } = this.#deps;
    health.reached(true);
    metrics.inc("edgeloop_reconciles_total", { controller: controller.name, result: "refused" });
    log("warn", "the Worker refused the snapshot; not retried until the parent changes", { controller: controller.name, key: parent, status: error.status, error: error.message });
    const target = parentRef(controller, parent, null);
    if (!target) return { kind: "done", terminal: true };
    const message = `the Worker refused the snapshot of ${parent}: ${error.message}`.slice(0, 1024);
    await recorder.record({ type: "event", target, eventType: "Warning", reason: "ReconcileRefused", message }).catch((e: unknown) => log("warn", "could not record the refusal", { controller: controller.name, key: parent, error: String(e) }));
    return { kind: "done", terminal: true };
  }
}

/** A namespaced parent's plan stays in the key's namespace; other plans are bounded by kinds alone. */
function scopeOf(controller: ControllerManifest, key: QueueKey): Scope {
  if (key.delivery === "events" || !parentIsNamespaced(controller)) return {};
  return { namespace: splitKey(key.parent).namespace };
}
