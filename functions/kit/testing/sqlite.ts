/**
 * Test support: the `Sql` interface over a `node:sqlite` `DatabaseSync`, as a Durable
 * Object's `ctx.storage.sql` behaves. The database is passed in (`new
 * SqliteSql(new DatabaseSync(path))` in a test): this folder is type-checked for workerd
 * too, where `node:sqlite` has no types, so only its shape is named here.
 */
import type { Sql, SqlCursor, SqlStorageValue } from "../sql.ts";

/** A value `node:sqlite` binds. */
type SqliteValue = Uint8Array | string | number | null;

/** The part of `node:sqlite`'s `StatementSync` used here. */
export interface SqliteStatement {
  columns(): readonly unknown[];
  all(...params: SqliteValue[]): unknown[];
  run(...params: SqliteValue[]): { changes: number | bigint };
}

/** The part of `node:sqlite`'s `DatabaseSync` used here. */
export interface SqliteDatabase {
  prepare(query: string): SqliteStatement;
  exec(query: string): void;
  close(): void;
}

/** `Sql` over a `node:sqlite` database. */
export class SqliteSql implements Sql {
  readonly db: SqliteDatabase;
  /** Prepared once per query text, as workerd caches them. */
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(db: SqliteDatabase) {
    this.db = db;
  }

  /** Runs one statement (`prepare` then `all` or `run`), or several DDL statements at once without bindings. */
  exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]): SqlCursor<T> {
    if (bindings.length === 0 && /;\s*\S/.test(query)) {
      this.db.exec(query);
      return cursor<T>([], 0);
    }
    const params: SqliteValue[] = bindings.map((value) => (value instanceof ArrayBuffer ? new Uint8Array(value) : value));
    let statement = this.#statements.get(query);
    if (!statement) {
      statement = this.db.prepare(query);
      this.#statements.set(query, statement);
    }
    if (statement.columns().length === 0) return cursor<T>([], Number(statement.run(...params).changes));
    const rows = statement.all(...params).map((row) => convert(row as Record<string, unknown>) as T);
    // A write with RETURNING answers one row per row written.
    return cursor<T>(rows, /^\s*(insert|update|delete|replace)\b/i.test(query) ? rows.length : 0);
  }

  /** Closes the database. */
  close(): void {
    this.#statements.clear();
    this.db.close();
  }
}

/** A row with BLOBs as ArrayBuffers, as workerd returns them. */
function convert(row: Record<string, unknown>): Record<string, SqlStorageValue> {
  const out: Record<string, SqlStorageValue> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array) out[key] = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer;
    else if (typeof value === "bigint") out[key] = Number(value);
    else out[key] = value as SqlStorageValue;
  }
  return out;
}

/** A cursor over rows already read. */
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
