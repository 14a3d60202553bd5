import { ProbedDurableObject } from "./probed.ts";
import type { ReplayContract } from "./contracts.ts";
import { SeenSignatures } from "./signatures.ts";

/** How often expired signatures are swept while any are held. */
const SWEEP_MS = 60_000;

/**
 * The signatures of signed POSTs already received, each held until its timestamp leaves
 * the accepted skew window: a request captured and sent again inside the window is
 * refused. Sharded by the signature's first hex digit (16 objects), so no one object
 * sees every request.
 */
export class ReplayGuard extends ProbedDurableObject implements ReplayContract {
  readonly #seen: SeenSignatures;
  /** Whether a sweep is known to be scheduled (saves a storage read per request). */
  #sweepArmed = false;

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#seen = new SeenSignatures(this.sql);
  }

  /** True the first time `signature` arrives (it is then held until `expiresAt`, ms); false for a repeat. */
  first(signature: string, expiresAt: number): Promise<boolean> {
    return this.served(async () => {
      const now = Date.now();
      if (!this.#seen.first(signature, expiresAt, now)) return false;
      if (!this.#sweepArmed) await this.#armSweep(now);
      return true;
    });
  }

  async #armSweep(now: number): Promise<void> {
    if ((await this.storage.getAlarm()) === null) await this.storage.setAlarm(now + SWEEP_MS);
    this.#sweepArmed = true;
  }

  /** Signatures held (expired ones not swept yet included). */
  size(): Promise<number> {
    return this.served(() => this.#seen.count());
  }

  /** Forgets expired signatures; re-arms while any remain. */
  override alarm(): Promise<void> {
    return this.served(async () => {
      const now = Date.now();
      this.#seen.sweep(now);
      this.#sweepArmed = false;
      if (this.#seen.count() > 0) await this.#armSweep(now);
    });
  }
}
