/**
 * Drains the Worker's outbox (plans produced outside a request, by a timer): long-polls
 * a batch, applies every plan in order, and acknowledges it by asking for the next one
 * only then. Failures back off from 200 ms to 10 s.
 */
import type { Logger } from "../../cli/log.ts";
import type { ApplyResult } from "../apply/applier.ts";
import type { PlanSink } from "../apply/guard.ts";
import type { OutboxEntry } from "../../protocol/index.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { ManifestSource } from "./manifest.ts";
import type { WorkerClient } from "./worker-client.ts";

/** What the drainer uses. */
export interface OutboxDrainerDeps {
  readonly worker: Pick<WorkerClient, "outbox">;
  /** The apply stage: bounds each entry's plan by its controller's declared kinds (an entry has no parent), then applies it. */
  readonly plans: PlanSink;
  readonly manifests: ManifestSource;
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

  /** Applies one entry's plan; an entry of a controller the manifest does not list does nothing. */
  async #apply(entry: OutboxEntry): Promise<ApplyResult> {
    const controller = this.#deps.manifests.manifest.controllers.find((c) => c.name === entry.controller);
    if (!controller) {
      this.#deps.log("warn", "outbox entry of an unknown controller refused", { controller: entry.controller, actions: entry.plan.actions.length });
      return { ok: true, failed: 0 };
    }
    return this.#deps.plans.apply(entry.plan, { controller, scope: {}, target: { controller: controller.name } });
  }

  async #drain(): Promise<void> {
    const { worker, metrics, log, waitSeconds } = this.#deps;
    let cursor = "0";
    let delay = 200;
    while (!this.#stopped) {
      try {
        const batch = await worker.outbox(cursor, waitSeconds, this.#abort.signal);
        for (const entry of batch.entries) {
          const result = await this.#apply(entry);
          if (!result.ok) throw new Error(result.error);
          metrics.inc("edgeloop_outbox_entries_total", { controller: entry.controller });
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
