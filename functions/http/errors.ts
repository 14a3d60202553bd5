import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { errorFromZod, StatusError, type ErrorBody } from "../../protocol/index.ts";

/**
 * A failure a route answers with a JSON `ErrorBody`: the protocol's {@link StatusError}
 * (its `reason` is the body's `code`), which the relay's Worker client reads back as one.
 */
export class HttpError extends StatusError {
  declare readonly status: ContentfulStatusCode;
  readonly path: string;
  constructor(status: ContentfulStatusCode, code: string, message: string, path = "") {
    super(status, code, message);
    this.path = path;
  }

  /** The body's `code` (`not_found`, `too_deep`...). */
  get code(): string {
    return this.reason;
  }

  /** A 400 naming the first field zod refused (`prefix` is prepended to its path). */
  static fromZod(error: z.ZodError, prefix = ""): HttpError {
    const body = errorFromZod(error, prefix).error;
    return new HttpError(400, body.code, body.message, body.path);
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message, path: this.path } };
  }
}

/** Answers `error` as JSON; anything that is not an `HttpError` is a 500 without details. */
export function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof HttpError) return c.json(error.body(), error.status);
  console.error(JSON.stringify({ level: "error", msg: "unhandled", error: String(error) }));
  return c.json({ error: { code: "internal", message: "internal error", path: "" } } satisfies ErrorBody, 500);
}
