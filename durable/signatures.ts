/**
 * Signatures of signed requests already received, each held until its timestamp leaves
 * the accepted skew window: the replay guard's whole state, and the ledger's for the
 * requests whose claims it decides (ADR 0004). A table `seen` in the owner's SQLite.
 */
export class SeenSignatures {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    sql.exec("CREATE TABLE IF NOT EXISTS seen (signature TEXT PRIMARY KEY, expires INTEGER NOT NULL) WITHOUT ROWID");
    sql.exec("CREATE INDEX IF NOT EXISTS seen_expires ON seen (expires)");
  }

  /** True the first time `signature` arrives by `nowMs` (it is then held until `expiresAt`, ms); false for a repeat. */
  first(signature: string, expiresAt: number, nowMs: number): boolean {
    const held = this.#sql.exec<{ expires: number }>("SELECT expires FROM seen WHERE signature = ?", signature).toArray()[0];
    if (held && held.expires > nowMs) return false;
    this.#sql.exec("INSERT INTO seen (signature, expires) VALUES (?, ?) ON CONFLICT (signature) DO UPDATE SET expires = excluded.expires", signature, expiresAt);
    return true;
  }

  /** Forgets the signatures expired at `nowMs`. */
  sweep(nowMs: number): void {
    this.#sql.exec("DELETE FROM seen WHERE expires <= ?", nowMs);
  }

  /** Signatures held (expired ones not swept yet included). */
  count(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM seen").one().n;
  }
}
