/**
 * At most N plans applied at once: the apply stage's own bound, apart from how many
 * reconciles wait on the Worker. Across the internet a reconcile spends most of its time
 * on the link (one RTT), so the work queue keeps many keys in flight (`workerInFlight`)
 * while the API server sees no more concurrent plans than `--concurrency`: as
 * controller-runtime's MaxConcurrentReconciles bounds the work against the API server, not
 * the wait before it. A plan waiting for a slot is taken first come, first served.
 */
import type { Action, Plan } from "../../protocol/index.ts";
import type { ApplyResult } from "./applier.ts";
import type { PlanContext, PlanSink } from "./guard.ts";

/** A {@link PlanSink} that applies at most `slots` plans at once. */
export class ApplySlots implements PlanSink {
  readonly #sink: PlanSink;
  readonly #slots: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(sink: PlanSink, slots: number) {
    this.#sink = sink;
    this.#slots = slots;
  }

  /** Plans waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  async apply(plan: Plan, context: PlanContext): Promise<ApplyResult> {
    // A plan of nothing takes no slot: most answers of a busy resync say "nothing to do".
    if (plan.actions.length === 0) return this.#sink.apply(plan, context);
    await this.#acquire();
    try {
      return await this.#sink.apply(plan, context);
    } finally {
      this.#release();
    }
  }

  applyAction(action: Action, context: PlanContext): Promise<void> {
    return this.#sink.applyAction(action, context);
  }

  async #acquire(): Promise<void> {
    if (this.#busy < this.#slots) {
      this.#busy += 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the slot to the next plan waiting, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy -= 1;
  }
}
