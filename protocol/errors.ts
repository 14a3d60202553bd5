import { z } from "zod";

/** The JSON body of every 4xx/5xx the Worker and relay answer. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    /** Dot path of the offending field (`children.Pod.v1.0.metadata`), or "" for the whole body. */
    path: z.string(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Turns the first zod issue into an error body that names the field. */
export function errorFromZod(error: z.ZodError, prefix = ""): ErrorBody {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter((p) => p !== "").join(".");
  return { error: { code: "invalid", message: issue?.message ?? "invalid input", path } };
}

/**
 * A failed HTTP call, as every side of edgeloop reads it: the status (0 when no answer
 * came: the peer unreachable, the connection cut, a timeout), the reason (a Kubernetes
 * `Status.reason` such as `Conflict`, or the `code` of an {@link ErrorBody}), the message,
 * and the wait the server asked for (`Retry-After`, in ms). The relay's Kubernetes and
 * Worker clients throw it; the Worker's routes answer with it (`functions/http/errors.ts`).
 */
export class StatusError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly retryAfterMs: number | undefined;
  constructor(status: number, reason: string, message: string, retryAfterMs?: number) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.retryAfterMs = retryAfterMs;
  }

  /** Whether the same request sent again may succeed ({@link transientStatus}). */
  get transient(): boolean {
    return transientStatus(this.status);
  }
}

/**
 * The one transient/permanent policy: whether a request refused with `status` may succeed
 * if sent again as it is. Transient: no answer (0), 401 (a token rotates, a signature's
 * clock moves on), 408, 409 (a conflict: the next attempt reads the newer state), 425,
 * 429 and every 5xx. Any other refusal is of the request itself (400 malformed, 403
 * forbidden, 404 no such object or route, 413 too large, 422 invalid...): it comes back
 * the same, so it is reported, not retried.
 */
export function transientStatus(status: number): boolean {
  return status === 0 || status >= 500 || TRANSIENT_4XX.has(status);
}

const TRANSIENT_4XX: ReadonlySet<number> = new Set([401, 408, 409, 425, 429]);

/**
 * Whether `error` is a refusal that sending the same request again cannot change: a
 * {@link StatusError} whose status is not {@link transientStatus}. Anything else (no
 * answer, a failure before any) may pass on retry.
 */
export function isPermanent(error: unknown): error is StatusError {
  return error instanceof StatusError && !error.transient;
}
