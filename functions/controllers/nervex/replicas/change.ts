/**
 * The answer of a call that changes the cluster (POST, DELETE, POST /failed): the reply
 * and the actions the relay applies first, a 500 in the envelope when one fails. Up to
 * {@link APPLY_CONCURRENCY} creates (or deletes) are applied at once: a replica's pod and
 * Service, and the replicas of one call, do not depend on each other, and one after
 * another they made a POST of 10 replicas wait for 20 round trips to the API server.
 */
import type { Action, ApiAnswer } from "../../../../protocol/index.ts";
import { failedBody, okBody } from "./envelope.ts";

/** How many of an answer's creates (or deletes) the relay applies at once. */
export const APPLY_CONCURRENCY = 16;

/** A 200 with `data` once every action applied; `failedMessage` in a 500 when one did not. */
export function changeAnswer(message: string, failedMessage: string, data: unknown, actions: readonly Action[]): ApiAnswer {
  return { status: 200, body: okBody(message, data), actions: [...actions], onApplyError: { status: 500, body: failedBody(failedMessage) }, concurrency: APPLY_CONCURRENCY };
}
