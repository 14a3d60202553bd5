/**
 * A Durable Object's `ctx.storage` for the in-process baseline (ADR 0015): the subset of
 * workerd's `DurableObjectStorage` that edgeloop's classes call — `sql.exec` (cursor:
 * `toArray`, `one`, `rowsWritten`), `transactionSync`, and the one alarm (`getAlarm`,
 * `setAlarm`, `deleteAlarm`) — over a `node:sqlite` database: in memory by default, or a
 * file whose every commit is synced to disk (WAL, `synchronous=FULL`), for a baseline that
 * pays for durable writes as workerd does. Same SQL dialect as workerd's (both are SQLite);
 * there are no input or output gates: a storage call here is a synchronous library call.
 */
import { DatabaseSync } from "node:sqlite";
// The kit's adapter over node:sqlite is `ctx.storage.sql` as far as edgeloop uses it.
import { SqliteSql } from "../../../functions/kit/testing/sqlite.ts";

/** Told when the object's alarm is set (epoch ms) or cleared (`null`). */
export type AlarmListener = (at: number | null) => void;

/** The storage of one Durable Object. */
export class InProcessStorage {
  readonly sql: SqliteSql;
  readonly #db: DatabaseSync;
  readonly #onAlarm: AlarmListener;
  #alarm: number | null = null;

  /** `file`: a database file, each commit synced before it returns; in memory when absent. */
  constructor(onAlarm: AlarmListener = () => undefined, file?: string) {
    this.#db = new DatabaseSync(file ?? ":memory:");
    if (file !== undefined) this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
    this.#onAlarm = onAlarm;
    this.sql = new SqliteSql(this.#db);
  }

  /** Runs `fn` in one transaction: all its writes, or (when it throws) none. */
  transactionSync<T>(fn: () => T): T {
    this.#db.exec("BEGIN");
    try {
      const result = fn();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  getAlarm(): Promise<number | null> {
    return Promise.resolve(this.#alarm);
  }

  setAlarm(scheduledTime: number | Date): Promise<void> {
    this.#alarm = typeof scheduledTime === "number" ? scheduledTime : scheduledTime.getTime();
    this.#onAlarm(this.#alarm);
    return Promise.resolve();
  }

  deleteAlarm(): Promise<void> {
    this.#alarm = null;
    this.#onAlarm(null);
    return Promise.resolve();
  }

  /** The alarm now, read synchronously (for the namespace that arms its timer). */
  peekAlarm(): number | null {
    return this.#alarm;
  }

  /** Forgets the alarm without telling the listener: the runtime does this before it calls `alarm()`. */
  takeAlarm(): number | null {
    const at = this.#alarm;
    this.#alarm = null;
    return at;
  }

  /** Frees the database. */
  close(): void {
    this.sql.close();
  }
}
