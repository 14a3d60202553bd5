/**
 * Replies held for a retry window: the first caller's value under a key, answered to every
 * caller until it expires or is released. An HTTP API answers a client's retry with its
 * first reply this way, and applies nothing twice. A table `replies` in the owner's
 * SQLite, a table of its own rather than a column of the claims: objects created before it
 * existed keep working.
 */
export class Replies {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    sql.exec("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID");
  }

  /**
   * Holds `value` under `key` for `ttlSeconds` from `nowMs` unless a value is held;
   * answers the held one (`value` itself for the first caller).
   */
  remember(key: string, ttlSeconds: number, value: string, nowMs: number): string {
    // Swept here rather than by timers: values live seconds, the table stays a handful of
    // rows, and an API call is spared the alarm's storage round trips.
    this.#sql.exec("DELETE FROM replies WHERE expires <= ?", nowMs);
    const held = this.#sql.exec<{ value: string }>("SELECT value FROM replies WHERE key = ?", key).toArray()[0];
    if (held) return held.value;
    this.#sql.exec("INSERT INTO replies (key, value, expires) VALUES (?, ?, ?)", key, value, nowMs + Math.max(1, ttlSeconds) * 1000);
    return value;
  }

  /** Drops the value of `key`; true when one was held. */
  release(key: string): boolean {
    return this.#sql.exec("DELETE FROM replies WHERE key = ?", key).rowsWritten > 0;
  }

  /** Values held (expired ones not swept yet included). */
  count(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM replies").one().n;
  }
}
