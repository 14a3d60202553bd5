/**
 * Many timers on one Durable Object, which has a single alarm: a table of due times,
 * the alarm set to the earliest, and re-armed after each firing. The owner calls
 * `schedule` / `cancel` and, from its `alarm()` handler, `takeDue` then `rearm`.
 */
export class Timers {
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    storage.sql.exec("CREATE TABLE IF NOT EXISTS timers (id TEXT PRIMARY KEY, due INTEGER NOT NULL, payload TEXT NOT NULL) WITHOUT ROWID");
    storage.sql.exec("CREATE INDEX IF NOT EXISTS timers_due ON timers (due)");
  }

  /** Sets (or moves) timer `id` to fire at `dueMs` (epoch milliseconds) with `payload`. */
  async schedule(id: string, dueMs: number, payload = ""): Promise<void> {
    this.set(id, dueMs, payload);
    await this.rearm();
  }

  /** Like `schedule` without re-arming: for many timers set at once, followed by one `rearm`. */
  set(id: string, dueMs: number, payload = ""): void {
    this.#storage.sql.exec(
      "INSERT INTO timers (id, due, payload) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET due = excluded.due, payload = excluded.payload",
      id,
      Math.floor(dueMs),
      payload,
    );
  }

  /** Removes timer `id` if it is pending. */
  async cancel(id: string): Promise<void> {
    this.#storage.sql.exec("DELETE FROM timers WHERE id = ?", id);
    await this.rearm();
  }

  /** Removes and returns every timer due at `nowMs`, earliest first. */
  takeDue(nowMs: number): { id: string; due: number; payload: string }[] {
    const due = this.#storage.sql
      .exec<{ id: string; due: number; payload: string }>("SELECT id, due, payload FROM timers WHERE due <= ? ORDER BY due, id", nowMs)
      .toArray();
    this.#storage.sql.exec("DELETE FROM timers WHERE due <= ?", nowMs);
    return due;
  }

  /** Number of pending timers. */
  size(): number {
    return this.#storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM timers").one().n;
  }

  /** Points the object's single alarm at the earliest pending timer (or clears it). */
  async rearm(): Promise<void> {
    const next = this.#storage.sql.exec<{ due: number | null }>("SELECT MIN(due) AS due FROM timers").one().due;
    if (next === null) {
      await this.#storage.deleteAlarm();
      return;
    }
    const current = await this.#storage.getAlarm();
    if (current !== next) await this.#storage.setAlarm(next);
  }
}
