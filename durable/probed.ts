import { DurableObject } from "cloudflare:workers";

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
 */
export class ProbedDurableObject extends DurableObject<Record<string, unknown>> {
  /** Reads the storage: its incarnation id, or a rejection saying why the object cannot serve. */
  async ready(): Promise<string> {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS edgeloop_incarnation (id TEXT NOT NULL)");
    const [row] = sql.exec<{ id: string }>("SELECT id FROM edgeloop_incarnation LIMIT 1").toArray();
    if (row) return row.id;
    const id = crypto.randomUUID();
    sql.exec("INSERT INTO edgeloop_incarnation (id) VALUES (?)", id);
    return id;
  }
}

/** The object of each namespace the readiness route reads (created empty on first read, then reused). */
export const READINESS_OBJECT_NAME = "edgeloop-readiness";
