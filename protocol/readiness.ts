import { z } from "zod";

/** The signed readiness route: `GET /v1/ready`. */
export const READINESS_PATH = "/v1/ready";

/**
 * The Worker's answer to the signed readiness call (200): the signature was good and each
 * Durable Object namespace it is bound to answered a read (`"ok"` by binding). One that
 * did not makes the answer a 503 naming it (`error.path`: `durableObjects.<BINDING>`).
 */
export const Readiness = z.object({
  ok: z.literal(true),
  durableObjects: z.record(z.string(), z.literal("ok")),
});
export type Readiness = z.infer<typeof Readiness>;
