/**
 * A Durable Object's `ctx.storage` for the in-process baseline (ADR 0015): the subset of
 * workerd's `DurableObjectStorage` that edgeloop's classes call — `sql.exec` (cursor:
 * `toArray`, `one`, `rowsWritten`), `transactionSync`, and the one alarm (`getAlarm`,
 * `setAlarm`, `deleteAlarm`) — over a `node:sqlite` database: in memory by default, or a
 * file whose every commit is synced to disk (WAL, `synchronous=FULL`), for a baseline that
 * pays for durable writes as workerd does. Same SQL dialect as workerd's (both are SQLite);
 * there are no input or output gates: a storage call here is a synchronous library call.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";

/** A value SQLite stores or returns, as workerd's `SqlStorageValue`. */
export type SqlValue = ArrayBuffer | string | number | null;

/** What `sql.exec` returns (the part of workerd's `SqlStorageCursor` edgeloop reads). */
export interface SqlCursor<T> {
  toArray(): T[];
  /** The only row; throws unless there is exactly one. */
  one(): T;
  /** Rows inserted, updated or deleted. */
  readonly rowsWritten: number;
}

/** `ctx.storage.sql`, as far as edgeloop uses it. */
export interface InProcessSql {
  exec<T extends Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]): SqlCursor<T>;
}

/** Told when the object's alarm is set (epoch ms) or cleared (`null`). */
export type AlarmListener = (at: number | null) => void;

/** The storage of one Durable Object. */
export class InProcessStorage {
  readonly sql: InProcessSql;
  readonly #db: DatabaseSync;
  /** Prepared once per query text, as workerd caches them. */
  readonly #statements = new Map<string, StatementSync>();
  readonly #onAlarm: AlarmListener;
  #alarm: number | null = null;

  /** `file`: a database file, each commit synced before it returns; in memory when absent. */
  constructor(onAlarm: AlarmListener = () => undefined, file?: string) {
    this.#db = new DatabaseSync(file ?? ":memory:");
    if (file !== undefined) this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
    this.#onAlarm = onAlarm;
    this.sql = { exec: (query, ...bindings) => this.#exec(query, bindings) };
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
    this.#statements.clear();
    this.#db.close();
  }

  #exec<T extends Record<string, SqlValue>>(query: string, bindings: readonly SqlValue[]): SqlCursor<T> {
    // Several statements in one text (schema set-up): workerd runs them all; so does exec.
    if (bindings.length === 0 && /;\s*\S/.test(query)) {
      this.#db.exec(query);
      return cursor<T>([], 0);
    }
    let statement = this.#statements.get(query);
    if (!statement) {
      statement = this.#db.prepare(query);
      this.#statements.set(query, statement);
    }
    const params = bindings.map((value) => (value instanceof ArrayBuffer ? new Uint8Array(value) : value));
    if (statement.columns().length === 0) return cursor<T>([], Number(statement.run(...params).changes));
    const rows = statement.all(...params).map((row) => fromSqlite(row as Record<string, unknown>) as T);
    // A write with RETURNING answers one row per row written.
    return cursor<T>(rows, /^\s*(insert|update|delete|replace)\b/i.test(query) ? rows.length : 0);
  }
}

/** A row as workerd returns it: BLOBs as ArrayBuffers, integers as numbers. */
function fromSqlite(row: Record<string, unknown>): Record<string, SqlValue> {
  const out: Record<string, SqlValue> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array) out[key] = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer;
    else if (typeof value === "bigint") out[key] = Number(value);
    else out[key] = value as SqlValue;
  }
  return out;
}

function cursor<T>(rows: T[], rowsWritten: number): SqlCursor<T> {
  return {
    toArray: () => rows,
    one: () => {
      if (rows.length !== 1) throw new Error(`Expected exactly one result from SQL query, but got ${rows.length === 0 ? "no results" : "multiple results"}.`);
      return rows[0] as T;
    },
    rowsWritten,
  };
}
