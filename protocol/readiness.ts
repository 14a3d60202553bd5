import { z } from "zod";

/** The signed readiness route: `GET /v1/ready`. */
export const READINESS_PATH = "/v1/ready";

/**
 * The Worker's answer to the signed readiness call (200): the signature was good and each
 * Durable Object namespace it is bound to answered a read, with its storage's incarnation
 * (an id made when that storage was first read: a new one means the storage is new). One
 * that did not makes the answer a 503 naming it (`error.path`: `durableObjects.<BINDING>`).
 */
export const Readiness = z.object({
  ok: z.literal(true),
  durableObjects: z.record(z.string().max(128), z.object({ incarnation: z.string().min(1).max(64) })).refine((objects) => Object.keys(objects).length <= 64, "at most 64 bindings"),
});
export type Readiness = z.infer<typeof Readiness>;
