import { z } from "zod";
import { ObjectKey } from "./objects.ts";
import { Plan } from "./plan.ts";

/** One plan produced outside a request (by a timer), waiting for the relay. */
export const OutboxEntry = z.object({
  /** Monotonic cursor; entries are delivered in this order. */
  id: z.string().regex(/^\d+$/),
  controller: z.string().min(1),
  /** The parent key the plan is about, when there is one. */
  key: ObjectKey.optional(),
  plan: Plan,
  createdAt: z.iso.datetime({ offset: true }),
});
export type OutboxEntry = z.infer<typeof OutboxEntry>;

/**
 * `GET /v1/outbox?cursor=C&wait=S`: entries after C (C acknowledges all up to it).
 * `cursor` in the answer is what to send next once these are applied.
 */
export const OutboxBatch = z.object({
  cursor: z.string().regex(/^\d+$/),
  entries: z.array(OutboxEntry),
});
export type OutboxBatch = z.infer<typeof OutboxBatch>;

/** Query of `GET /v1/outbox`. */
export const OutboxQuery = z.object({
  cursor: z.string().regex(/^\d+$/, "cursor must be a decimal id").default("0"),
  wait: z.coerce.number().int().min(0).max(60).default(0),
});
export type OutboxQuery = z.infer<typeof OutboxQuery>;
