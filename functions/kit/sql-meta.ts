/**
 * A store's own small numbers (a list generation, the next sequence) in a table of its
 * own: one row per name, so stores sharing one Durable Object's SQLite keep theirs apart.
 */
import type { Sql } from "./sql.ts";

/** Named integers in table `table` (created when missing). */
export class MetaValues {
  readonly #sql: Sql;
  readonly #table: string;

  /** `table`: a fixed SQL identifier of the store's (never input). */
  constructor(sql: Sql, table: string) {
    if (!/^[a-z][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
    this.#sql = sql;
    this.#table = table;
    sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
  }

  /** The value of `name`, if set. */
  get(name: string): number | undefined {
    return this.#sql.exec<{ value: number }>(`SELECT value FROM ${this.#table} WHERE name = ?`, name).toArray()[0]?.value;
  }

  /** Sets `name` to `value`. */
  set(name: string, value: number): void {
    this.#sql.exec(`INSERT INTO ${this.#table} (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, value);
  }
}
