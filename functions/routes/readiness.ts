import { HttpError } from "../http/errors.ts";
import type { WorkerDeps } from "../deps.ts";
import type { Readiness } from "../../protocol/index.ts";

/** How long one Durable Object namespace may take to answer the readiness read. */
export const READINESS_DO_TIMEOUT_MS = 2_000;

/** One namespace's answer: its incarnation, or why it is not ready. */
type Answer = { readonly incarnation: string } | { readonly failure: string };

/** `ready()`'s answer within `timeoutMs`, or why there was none. */
async function answer(ready: () => Promise<string>, timeoutMs: number): Promise<Answer> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Answer>((resolve) => (timer = setTimeout(() => resolve({ failure: `no answer within ${timeoutMs} ms` }), timeoutMs)));
  try {
    return await Promise.race([ready().then((incarnation): Answer => ({ incarnation })), late]);
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * `GET /v1/ready` (signed): the relay's readiness probe. Reaching here proves the
 * signature (the secret matches); then each Durable Object namespace the Worker is bound
 * to answers a read of one object's storage, all at once, with that storage's incarnation.
 * A namespace that fails or does not answer is a 503 naming its binding. Changes nothing
 * the relay sent, so not replay-checked.
 */
export async function readinessRoute(deps: Pick<WorkerDeps, "durableNamespaces">, timeoutMs = READINESS_DO_TIMEOUT_MS): Promise<Readiness> {
  const namespaces = deps.durableNamespaces();
  const answers = await Promise.all(namespaces.map((namespace) => answer(namespace.ready, timeoutMs)));
  const durableObjects: Readiness["durableObjects"] = {};
  for (const [i, namespace] of namespaces.entries()) {
    const got = answers[i];
    if (got === undefined || "failure" in got) throw new HttpError(503, "not_ready", `Durable Object ${namespace.binding}: ${got && "failure" in got ? got.failure : "no answer"}`, `durableObjects.${namespace.binding}`);
    durableObjects[namespace.binding] = { incarnation: got.incarnation };
  }
  return { ok: true, durableObjects };
}
