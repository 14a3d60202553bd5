/**
 * Drains the Worker's outbox (plans produced outside a request, by a timer): long-polls
 * a batch, applies every plan in order, and acknowledges it by asking for the next one
 * only then. Failures back off from 200 ms to 10 s.
 */
import type { Logger } from "../../cli/log.ts";
import type { PlanApplier } from "../apply/applier.ts";
import type { Manifest, Plan } from "../../protocol/index.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { ScopeGuard } from "../apply/guard.ts";
import type { WorkerClient } from "./worker-client.ts";

/** What the drainer uses. */
export interface OutboxDrainerDeps {
  readonly worker: WorkerClient;
  readonly applier: PlanApplier;
  /** Bounds each entry's plan by its controller's declared kinds (an entry has no parent). */
  readonly guard: ScopeGuard;
  readonly manifest: () => Manifest;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** The long-poll, in seconds. */
  readonly waitSeconds: number;
}

/** The outbox loop; started by the leader. */
export class OutboxDrainer {
  readonly #deps: OutboxDrainerDeps;
  readonly #abort = new AbortController();
  #stopped = false;
  #loop: Promise<void> | undefined;

  constructor(deps: OutboxDrainerDeps) {
    this.#deps = deps;
  }

  /** Starts draining. */
  start(): void {
    this.#loop ??= this.#drain();
  }

  /** Stops at once (an outstanding poll is aborted); resolves when the loop has ended. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    return this.#loop ?? Promise.resolve();
  }

  /** An entry of a controller the manifest does not list may do nothing. */
  async #guarded(name: string, plan: Plan): Promise<Plan> {
    const controller = this.#deps.manifest().controllers.find((c) => c.name === name);
    if (!controller) {
      this.#deps.log("warn", "outbox entry of an unknown controller refused", { controller: name, actions: plan.actions.length });
      return { ...plan, actions: [] };
    }
    return this.#deps.guard.filter(plan, controller, {}, undefined);
  }

  async #drain(): Promise<void> {
    const { worker, applier, metrics, log, waitSeconds } = this.#deps;
    let cursor = "0";
    let delay = 200;
    while (!this.#stopped) {
      try {
        const batch = await worker.outbox(cursor, waitSeconds, this.#abort.signal);
        for (const entry of batch.entries) {
          const result = await applier.apply(await this.#guarded(entry.controller, entry.plan), undefined);
          if (!result.ok) throw new Error(result.error);
          metrics.inc(`edgeloop_outbox_entries_total{controller="${entry.controller}"}`);
        }
        // Acknowledged by the next request, only now that everything is applied.
        cursor = batch.cursor;
        delay = 200;
      } catch (error) {
        if (this.#stopped) return;
        log("warn", "outbox poll failed", { error: String(error), retryInMs: delay });
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 10_000);
      }
    }
  }
}
