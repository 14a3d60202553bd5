/**
 * The gang scheduler's Durable Object (declared in `bindings.ts`, ADR 0012 and 0022): the
 * queue's state machine (`queue/`) over the object's SQLite storage, its timers as the
 * object's one alarm. What an alarm decides (a deadline's root deletes, a warning) goes to
 * the Worker's Outbox through a table of its own first, in the same transaction that
 * fires the timers, so a failed append is sent again, never lost.
 */
import type { EventBatch, Plan } from "../../../protocol/index.ts";
import { ProbedDurableObject, type StubAnswers } from "../../kit/durable-object.ts";
import { outboxOf } from "../../kit/outbox.ts";
import type { GangRow } from "./api/schema.ts";
import type { GANG_QUEUE, GangQueueContract } from "./bindings.ts";
import { GangQueueLogic } from "./queue/index.ts";
import { gangSettings } from "./settings.ts";

/** The controller the alarm's plans are appended under (its events controller's name). */
const CONTROLLER = "gang";

/** When to try again to hand plans to the Outbox after it failed. */
const OUTBOX_RETRY_MS = 5_000;

/** The queue of gangs: one object for the cluster. */
export class GangQueue extends ProbedDurableObject implements GangQueueContract {
  readonly #logic: GangQueueLogic;

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.sql.exec("CREATE TABLE IF NOT EXISTS gang_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, plan TEXT NOT NULL)");
    this.#logic = new GangQueueLogic(this.sql, gangSettings(env));
  }

  /** Takes a batch of pod and node events; answers the plan of the pass it allows. */
  apply(batch: EventBatch): Promise<Plan> {
    return this.served(async () => {
      let plan: Plan;
      try {
        plan = this.#logic.apply(batch);
      } catch (error) {
        // Whatever the storage kept of a batch that failed half way, the memory of it is read again.
        this.#logic.forgetRows();
        throw error;
      }
      await this.#rearm();
      return plan;
    });
  }

  /** One row per group, as of `nowMs`. */
  groups(nowMs: number): Promise<GangRow[]> {
    return this.served(() => this.#logic.groups(nowMs));
  }

  /** Fires the due timers into the local outbox (one transaction), then hands what waits there to the Worker's Outbox. */
  override alarm(): Promise<void> {
    return this.served(async () => {
      try {
        this.storage.transactionSync(() => {
          const plan = this.#logic.due(Date.now());
          if (plan.actions.length > 0) this.sql.exec("INSERT INTO gang_outbox (plan) VALUES (?)", JSON.stringify(plan));
        });
      } catch (error) {
        // Rolled back: what the logic keeps in memory of its tables may be ahead of them.
        this.#logic.forgetRows();
        throw error;
      }
      const waiting = this.sql.exec<{ id: number; plan: string }>("SELECT id, plan FROM gang_outbox ORDER BY id").toArray();
      try {
        for (const row of waiting) {
          await outboxOf(this.env).append(CONTROLLER, JSON.parse(row.plan) as Plan);
          this.sql.exec("DELETE FROM gang_outbox WHERE id = ?", row.id);
        }
      } finally {
        await this.#rearm();
      }
    });
  }

  /** The alarm at the next timer, or soon while plans wait for the Outbox. */
  async #rearm(): Promise<void> {
    const pending = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM gang_outbox").one().n > 0;
    const next = this.#logic.nextWake();
    const at = pending ? Math.min(next ?? Infinity, Date.now() + OUTBOX_RETRY_MS) : next;
    if (at === undefined) {
      await this.storage.deleteAlarm();
      return;
    }
    if ((await this.storage.getAlarm()) !== at) await this.storage.setAlarm(at);
  }
}

/** The compiler's proof that the queue's stubs answer the contract the controller calls them by. */
const STUB_ANSWERS: StubAnswers<GangQueue, typeof GANG_QUEUE> = true;
void STUB_ANSWERS;
