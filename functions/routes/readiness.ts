import { HttpError } from "../http/errors.ts";
import type { WorkerDeps } from "../deps.ts";
import type { Readiness } from "../../protocol/index.ts";

/** How long one Durable Object namespace may take to answer the readiness read. */
export const READINESS_DO_TIMEOUT_MS = 2_000;

/** Why one namespace is not ready, or undefined once it answered within `timeoutMs`. */
async function failure(ready: () => Promise<unknown>, timeoutMs: number): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs)));
  try {
    return await Promise.race([ready().then(() => undefined), late]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * `GET /v1/ready` (signed): the relay's readiness probe. Reaching here proves the
 * signature (the secret matches); then each Durable Object namespace the Worker is bound
 * to answers a read of one object's storage, all at once. A namespace that fails or does
 * not answer is a 503 naming its binding. Changes nothing, so not replay-checked.
 */
export async function readinessRoute(deps: Pick<WorkerDeps, "durableNamespaces">, timeoutMs = READINESS_DO_TIMEOUT_MS): Promise<Readiness> {
  const namespaces = deps.durableNamespaces();
  const failures = await Promise.all(namespaces.map((namespace) => failure(namespace.ready, timeoutMs)));
  const failed = namespaces.findIndex((_, i) => failures[i] !== undefined);
  if (failed >= 0) {
    const binding = namespaces[failed]?.binding ?? "";
    throw new HttpError(503, "not_ready", `Durable Object ${binding}: ${failures[failed] ?? ""}`, `durableObjects.${binding}`);
  }
  return { ok: true, durableObjects: Object.fromEntries(namespaces.map((namespace) => [namespace.binding, "ok" as const])) };
}
