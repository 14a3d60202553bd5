/**
 * The SQL a Durable Object's state logic needs: the subset of Cloudflare's `SqlStorage`
 * (`ctx.storage.sql`) it calls, so the object passes its own storage as it is and tests
 * pass an adapter over `node:sqlite` (`testing/sqlite.ts`): the logic is tested in Node.
 */

/** A value SQLite stores or returns (as `SqlStorageValue` of workers-types). */
export type SqlStorageValue = ArrayBuffer | string | number | null;

/** What one statement returns (the part of `SqlStorageCursor` used here). */
export interface SqlCursor<T> {
  /** Every row. */
  toArray(): T[];
  /** The only row; throws when there is not exactly one. */
  one(): T;
  /** Rows inserted, updated or deleted by the statement. */
  readonly rowsWritten: number;
}

/** `ctx.storage.sql`, as far as the kit's and the families' stores use it. */
export interface Sql {
  /** Runs `query` with positional `?` bindings. */
  exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]): SqlCursor<T>;
}
