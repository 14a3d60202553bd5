import { DurableObject } from "cloudflare:workers";

/**
 * A Durable Object the Worker's readiness route can ask (`GET /v1/ready`, the relay's
 * `/readyz`): every class of the floor and of the families extends it, so that one read
 * proves its namespace serves — the object starts (its constructor ran) and its SQLite
 * storage answers.
 */
export class ProbedDurableObject extends DurableObject<Record<string, unknown>> {
  /** Reads the storage: 1, or a rejection saying why the object cannot serve. */
  async ready(): Promise<number> {
    return this.ctx.storage.sql.exec<{ one: number }>("SELECT 1 AS one").one().one;
  }
}

/** The object of each namespace the readiness route reads (created empty on first read, then reused). */
export const READINESS_OBJECT_NAME = "edgeloop-readiness";
