import { DurableObject } from "cloudflare:workers";
import type { DurableUsage } from "./contracts.ts";
import { UsageMeter } from "./usage.ts";

/**
 * A Durable Object the Worker's readiness route can ask (`GET /v1/ready`, the relay's
 * `/readyz`): every class of the floor and of the families extends it, so that one read
 * proves its namespace serves — the object starts (its constructor ran) and its SQLite
 * storage answers.
 *
 * The read answers the storage's incarnation: an id written the first time the object is
 * read, so a new one means its storage is new. Storage lost (wiped, its class deleted
 * and made again, another account) leaves the queues and ledgers of that namespace
 * empty while the cluster is not; the relay, seeing the id change, resyncs and relists
 * the events controllers, so that what the Worker keeps is built again from the cluster.
 *
 * It also meters the object (`./usage.ts`): a subclass runs each RPC method and alarm
 * through {@link served}, and reaches its storage through {@link storage} (or {@link sql}).
 */
export class ProbedDurableObject extends DurableObject<Record<string, unknown>> {
  readonly #meter: UsageMeter;

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#meter = new UsageMeter(ctx.storage);
  }

  /** The object's storage (`ctx.storage`), metered: every statement's rows read and written are counted. */
  protected get storage(): DurableObjectStorage {
    return this.#meter.storage;
  }

  /** `storage.sql`, metered. */
  protected get sql(): SqlStorage {
    return this.#meter.sql;
  }

  /** Runs one request (an RPC call or an alarm), metered: counted, and its wall time kept as the object's active time. */
  protected async served<T>(work: () => T | Promise<T>): Promise<T> {
    const end = this.#meter.begin();
    try {
      return await work();
    } finally {
      end();
    }
  }

  /** What this object has cost since it started: requests, rows read and written, bytes stored. */
  async usage(): Promise<DurableUsage> {
    return this.#meter.read();
  }

  /** Reads the storage: its incarnation id, or a rejection saying why the object cannot serve. */
  ready(): Promise<string> {
    return this.served(() => {
      const sql = this.sql;
      sql.exec("CREATE TABLE IF NOT EXISTS edgeloop_incarnation (id TEXT NOT NULL)");
      const [row] = sql.exec<{ id: string }>("SELECT id FROM edgeloop_incarnation LIMIT 1").toArray();
      if (row) return row.id;
      const id = crypto.randomUUID();
      sql.exec("INSERT INTO edgeloop_incarnation (id) VALUES (?)", id);
      return id;
    });
  }
}
