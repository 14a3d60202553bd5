import { ProbedDurableObject } from "./probed.ts";
import type { OutboxBatch, OutboxEntry, Plan } from "../protocol/index.ts";
import type { OutboxContract } from "./contracts.ts";
import { ParkedReads } from "./parked.ts";

/** Most entries returned by one read. */
const PAGE = 100;

/**
 * Plans produced outside a request (by timers), waiting for the relay. Entries have a
 * monotonic id and stay until a read names a cursor at or past them: delivery is
 * at-least-once and in order, and it survives restarts (SQLite storage).
 */
export class Outbox extends ProbedDurableObject implements OutboxContract {
  /** Readers parked in a long poll, woken by the next append. */
  readonly #parked = new ParkedReads();

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS entries (id INTEGER PRIMARY KEY AUTOINCREMENT, controller TEXT NOT NULL, key TEXT, plan TEXT NOT NULL, created TEXT NOT NULL)",
    );
  }

  /** Appends one plan; returns its id. */
  append(controller: string, plan: Plan, key?: string): Promise<string> {
    return this.served(() => {
      const row = this.sql
        .exec<{ id: number }>(
          "INSERT INTO entries (controller, key, plan, created) VALUES (?, ?, ?, ?) RETURNING id",
          controller,
          key ?? null,
          JSON.stringify(plan),
          new Date().toISOString(),
        )
        .one();
      this.#parked.wakeAll();
      return String(row.id);
    });
  }

  /**
   * Acknowledges every entry up to `cursor`, then answers the entries after it,
   * waiting up to `waitSeconds` for one to arrive when there is none.
   */
  read(cursor: string, waitSeconds: number): Promise<OutboxBatch> {
    return this.served(async () => {
      const after = Number(cursor);
      this.sql.exec("DELETE FROM entries WHERE id <= ?", after);
      let entries = this.#after(after);
      if (entries.length === 0 && waitSeconds > 0) {
        await this.#parked.park(waitSeconds * 1000);
        entries = this.#after(after);
      }
      const last = entries.at(-1);
      return { cursor: last ? last.id : cursor, entries };
    });
  }

  /** Entries not yet acknowledged. */
  pending(): Promise<number> {
    return this.served(() => this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM entries").one().n);
  }

  #after(after: number): OutboxEntry[] {
    const rows = this.sql
      .exec<{ id: number; controller: string; key: string | null; plan: string; created: string }>(
        "SELECT id, controller, key, plan, created FROM entries WHERE id > ? ORDER BY id LIMIT ?",
        after,
        PAGE,
      )
      .toArray();
    return rows.map((row) => ({
      id: String(row.id),
      controller: row.controller,
      ...(row.key === null ? {} : { key: row.key }),
      plan: JSON.parse(row.plan) as Plan,
      createdAt: row.created,
    }));
  }
}
