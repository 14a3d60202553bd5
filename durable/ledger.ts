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
    // A table of its own, not a column of `claims`: objects created before it existed keep working.
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER NOT NULL)");
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
   * A claim that carries a value: the first caller's `value` is held under `key` for
   * `ttlSeconds`, and every caller until then gets it back. An HTTP API answers a
   * client's retry with the first reply this way, and applies nothing twice.
   */
  async remember(key: string, ttlSeconds: number, value: string): Promise<string> {
    const now = Date.now();
    // Swept here rather than by timers: values live seconds, the table stays a handful of
    // rows, and an API call is spared the alarm's storage round trips.
    this.ctx.storage.sql.exec("DELETE FROM replies WHERE expires <= ?", now);
    const held = this.ctx.storage.sql.exec<{ value: string }>("SELECT value FROM replies WHERE key = ?", key).toArray()[0];
    if (held) return held.value;
    this.ctx.storage.sql.exec("INSERT INTO replies (key, value, expires) VALUES (?, ?, ?)", key, value, now + Math.max(1, ttlSeconds) * 1000);
    return value;
  }

  /**
   * Drops the claim (or remembered value) of `key`, so the next claim of it is granted:
   * the relay reports the claimed action was not applied (a 409 or a transient error),
   * and a claim must guard only a replacement that happened. Its timer is cancelled too.
   */
  async release(key: string): Promise<boolean> {
    const replies = this.ctx.storage.sql.exec("DELETE FROM replies WHERE key = ?", key).rowsWritten;
    const claims = this.ctx.storage.sql.exec("DELETE FROM claims WHERE key = ?", key).rowsWritten;
    if (claims > 0) await this.#timers.cancel(key);
    return claims + replies > 0;
  }

  /** Claims and remembered values still held (expired ones that the alarm has not swept yet included). */
  async size(): Promise<number> {
    const claims = this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM claims").one().n;
    return claims + this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM replies").one().n;
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
