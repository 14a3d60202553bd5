import { DurableObject } from "cloudflare:workers";
import type { LedgerContract } from "./contracts.ts";
import { Timers } from "./timers.ts";

/**
 * The recreated-pods dedupe map, one object per namespace: `claim(key, ttl)` is true
 * for the first caller and false for repeats until the claim expires. Expired claims
 * are swept by the alarm (one timer per claim, see `Timers`).
 */
export class RecreationLedger extends DurableObject<Record<string, unknown>> implements LedgerContract {
  readonly #timers: Timers;

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, expires INTEGER NOT NULL)");
    this.#timers = new Timers(ctx.storage);
  }

  /** True when `key` was free (or its claim expired); it is then held for `ttlSeconds`. */
  async claim(key: string, ttlSeconds: number): Promise<boolean> {
    const now = Date.now();
    const held = this.ctx.storage.sql.exec<{ expires: number }>("SELECT expires FROM claims WHERE key = ?", key).toArray()[0];
    if (held && held.expires > now) return false;
    const expires = now + Math.max(1, ttlSeconds) * 1000;
    this.ctx.storage.sql.exec(
      "INSERT INTO claims (key, expires) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET expires = excluded.expires",
      key,
      expires,
    );
    await this.#timers.schedule(key, expires);
    return true;
  }

  /**
   * Drops the claim of `key`, so the next claim of it is granted: the relay reports the
   * claimed action was not applied (a 409 or a transient error), and a claim must guard
   * only a replacement that happened. Its timer is cancelled too.
   */
  async release(key: string): Promise<boolean> {
    const held = this.ctx.storage.sql.exec("DELETE FROM claims WHERE key = ?", key).rowsWritten > 0;
    if (held) await this.#timers.cancel(key);
    return held;
  }

  /** Claims still held (expired ones that the alarm has not swept yet included). */
  async size(): Promise<number> {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM claims").one().n;
  }

  /** Sweeps the claims whose time is up, then re-arms for the next one. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const timer of this.#timers.takeDue(now)) {
      this.ctx.storage.sql.exec("DELETE FROM claims WHERE key = ? AND expires <= ?", timer.id, now);
    }
    await this.#timers.rearm();
  }
}
