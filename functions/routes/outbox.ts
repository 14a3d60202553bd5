import { HttpError } from "../http/errors.ts";
import type { WorkerDeps } from "../deps.ts";
import { OutboxQuery, type OutboxBatch } from "../../protocol/index.ts";

/**
 * `GET /v1/outbox?cursor=&wait=`: acknowledges up to `cursor`, long-polls for what follows.
 * Replay-checked although a GET: acknowledging deletes entries, so a captured read sent
 * again must not acknowledge anything.
 */
export async function outboxRoute(query: Record<string, string>, deps: WorkerDeps): Promise<OutboxBatch> {
  const parsed = OutboxQuery.safeParse(query);
  if (!parsed.success) throw HttpError.fromZod(parsed.error, "query");
  await deps.beforeStateChange();
  return deps.outbox.read(parsed.data.cursor, parsed.data.wait);
}
