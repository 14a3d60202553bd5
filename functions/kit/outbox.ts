/**
 * The Worker's Outbox as a controller family's own Durable Object reaches it from its
 * alarm, where no request context is at hand: through the Outbox's binding in its `env`.
 */
import type { OutboxContract } from "../../durable/contracts.ts";
import { OUTBOX_OBJECT_NAME } from "../../durable/names.ts";
import { OUTBOX } from "../../durable/table.ts";

/** The one Outbox of the Worker whose bindings `env` holds. */
export function outboxOf(env: Readonly<Record<string, unknown>>): OutboxContract {
  const namespace = env[OUTBOX.binding] as DurableObjectNamespace;
  return namespace.get(namespace.idFromName(OUTBOX_OBJECT_NAME)) as unknown as OutboxContract;
}
