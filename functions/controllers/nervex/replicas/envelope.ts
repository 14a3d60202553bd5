/**
 * The replicas API's reply envelope, as upstream's server writes it:
 * `{"success": bool, "code": 0|1, "message": string, "data": ...}`. Success is code 0,
 * failure code 1; the HTTP status says which failure (DI-engine's client treats any
 * non-2xx as an error).
 */
import type { ApiAnswer } from "../../../../protocol/index.ts";

/** `code` of a successful reply. */
export const SUCCESS_CODE = 0;
/** `code` of a failed reply. */
export const FAILED_CODE = 1;

/** The body of every reply. */
export interface Envelope {
  readonly success: boolean;
  readonly code: typeof SUCCESS_CODE | typeof FAILED_CODE;
  readonly message: string;
  readonly data: unknown;
}

/** The failure statuses the API answers. */
export type FailureStatus = 400 | 404 | 409 | 500 | 501;

/** A refused request: its status and the message naming what was wrong. */
export interface Failure {
  readonly status: FailureStatus;
  readonly message: string;
}

/** Either a value or the failure that stopped the request. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: Failure };

/** A successful outcome. */
export function success<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** A failed outcome. */
export function failure<T = never>(status: FailureStatus, message: string): Outcome<T> {
  return { ok: false, failure: { status, message } };
}

/** The body of a successful reply. */
export function okBody(message: string, data: unknown): Envelope {
  return { success: true, code: SUCCESS_CODE, message, data };
}

/** The body of a failed reply (`data` is null, as upstream's nil). */
export function failedBody(message: string): Envelope {
  return { success: false, code: FAILED_CODE, message, data: null };
}

/** A 200 reply with no actions. */
export function okAnswer(message: string, data: unknown): ApiAnswer {
  return { status: 200, body: okBody(message, data) };
}

/** The reply for a failure. */
export function failedAnswer(failed: Failure): ApiAnswer {
  return { status: failed.status, body: failedBody(failed.message) };
}
