import { Timers } from "../timers.ts";

/**
 * The ledger's claims: a key held until it expires, granted to its first caller. A claim
 * whose expiry passed is free again before any sweep, so correctness never waits on an
 * alarm; the alarm only sweeps (one timer per claim, see `Timers`). A table `claims` in
 * the owner's SQLite.
 */
export class Claims {
  readonly #sql: SqlStorage;
  readonly #timers: Timers;

  constructor(storage: DurableObjectStorage) {
    this.#sql = storage.sql;
    storage.sql.exec("CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, expires INTEGER NOT NULL) WITHOUT ROWID");
    this.#timers = new Timers(storage);
  }

  /**
   * Holds `key` for `ttlSeconds` from `nowMs` unless it is held; true when it was free.
   * Its sweep is set but not armed: {@link rearm} once after many grants.
   */
  grant(key: string, ttlSeconds: number, nowMs: number): boolean {
    const held = this.#sql.exec<{ expires: number }>("SELECT expires FROM claims WHERE key = ?", key).toArray()[0];
    if (held && held.expires > nowMs) return false;
    const expires = nowMs + Math.max(1, ttlSeconds) * 1000;
    this.#sql.exec("INSERT INTO claims (key, expires) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET expires = excluded.expires", key, expires);
    this.#timers.set(key, expires);
    return true;
  }

  /** Points the object's alarm at the next expiry (after grants). */
  rearm(): Promise<void> {
    return this.#timers.rearm();
  }

  /** Drops the claim of `key` and cancels its sweep; true when one was held. */
  async release(key: string): Promise<boolean> {
    const released = this.#sql.exec("DELETE FROM claims WHERE key = ?", key).rowsWritten > 0;
    if (released) await this.#timers.cancel(key);
    return released;
  }

  /** Claims held (expired ones not swept yet included). */
  count(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM claims").one().n;
  }

  /** Sweeps the claims expired at `nowMs` (the owner's alarm), then re-arms for the next one. */
  async sweep(nowMs: number): Promise<void> {
    for (const timer of this.#timers.takeDue(nowMs)) {
      this.#sql.exec("DELETE FROM claims WHERE key = ? AND expires <= ?", timer.id, nowMs);
    }
    await this.#timers.rearm();
  }
}
