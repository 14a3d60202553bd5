/**
 * What a Durable Object costs, in the units Cloudflare bills and limits it by: requests
 * (each RPC call and alarm) and the wall time they keep it active, SQLite rows read and
 * written, and bytes stored. Each object keeps its own meter from the moment it starts
 * (not across evictions: it starts again at zero when workerd starts the object again) and
 * answers it over RPC (`ProbedDurableObject.usage`), so `npm run bench -- limits` and
 * `-- cost` read every object's figures beside Cloudflare's limits and prices instead of
 * assuming them.
 */
import type { DurableUsage } from "./contracts.ts";

/** Counts an object's requests and the rows of every statement run through {@link UsageMeter.storage}. */
export class UsageMeter {
  readonly #durable: DurableObjectStorage;
  readonly #storage: SqlStorage;
  #requests = 0;
  #rowsRead = 0;
  #rowsWritten = 0;
  #inFlight = 0;
  /** When the requests in flight began to overlap without a gap (ms). */
  #activeSince = 0;
  #activeMs = 0;
  /** The last statement's cursor: its rows are counted when the next statement starts (or the meter is read), once its caller has iterated it. */
  #last: SqlStorageCursor<Record<string, SqlStorageValue>> | undefined;
  #metered: SqlStorage | undefined;
  #meteredDurable: DurableObjectStorage | undefined;

  constructor(storage: DurableObjectStorage) {
    this.#durable = storage;
    this.#storage = storage.sql;
  }

  /** One request begins; call the function returned, once, when it ends. */
  begin(): () => void {
    this.#requests += 1;
    if (this.#inFlight++ === 0) this.#activeSince = Date.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.#inFlight === 0) this.#activeMs += Date.now() - this.#activeSince;
    };
  }

  /** The object's `ctx.storage.sql`, counting the rows each statement reads and writes. */
  get sql(): SqlStorage {
    return (this.#metered ??= this.#meter());
  }

  /** The object's `ctx.storage`, its `sql` metered. */
  get storage(): DurableObjectStorage {
    return (this.#meteredDurable ??= bindAllBut(this.#durable, "sql", this.sql));
  }

  /** The figures so far. */
  read(): DurableUsage {
    this.#harvest();
    const active = this.#activeMs + (this.#inFlight > 0 ? Date.now() - this.#activeSince : 0);
    return { requests: this.#requests, rowsRead: this.#rowsRead, rowsWritten: this.#rowsWritten, storedBytes: this.#storage.databaseSize, activeMs: active };
  }

  #meter(): SqlStorage {
    const storage = this.#storage;
    const exec = (query: string, ...bindings: unknown[]): SqlStorageCursor<Record<string, SqlStorageValue>> => {
      this.#harvest();
      const cursor = storage.exec(query, ...bindings);
      this.#last = cursor;
      return cursor;
    };
    return bindAllBut(storage, "exec", exec);
  }

  #harvest(): void {
    if (!this.#last) return;
    this.#rowsRead += this.#last.rowsRead;
    this.#rowsWritten += this.#last.rowsWritten;
    this.#last = undefined;
  }
}

/** `target` with `property` answered by `replacement`; everything else is the target's own, bound to it (workerd's methods check their receiver). */
function bindAllBut<T extends object>(target: T, property: string, replacement: unknown): T {
  return new Proxy(target, {
    get(object, key) {
      if (key === property) return replacement;
      const value: unknown = Reflect.get(object, key, object);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}

