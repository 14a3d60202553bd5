/**
 * What the gang scheduler's inspection (`GET /v1/gangs`, `npm run gangs`) says of each
 * group: shared by the API that answers it, the queue object's contract (`bindings.ts`)
 * and the command that prints it (`scripts/gangs.ts`). Plain zod, no runtime import of
 * the Worker, so Node-side tools read it too.
 */
import { z } from "zod";

/** Where a group is. */
export const GangState = z.enum(["provisional", "pending", "reserved", "running", "rejected"]);
export type GangState = z.infer<typeof GangState>;

/** Why a group waits, structured: which resource, how short, on how many candidate nodes, and a sentence. */
export const GangWaitReason = z.object({
  kind: z.enum(["resources", "fragmented", "constraints", "delays-reservation", "unsatisfiable"]),
  resource: z.string().optional(),
  /** How much more of `resource` the group needs, in its units (cpu in millicores, bytes, counts). */
  short: z.number(),
  pods: z.number().int(),
  nodes: z.number().int(),
  text: z.string(),
});
export type GangWaitReason = z.infer<typeof GangWaitReason>;

/** One group's row. */
export const GangRow = z.object({
  namespace: z.string(),
  group: z.string(),
  state: GangState,
  /** Its pods present (not finished), and the group's size. */
  present: z.number().int(),
  size: z.number().int(),
  /** Queue position, 1-based, for pending and reserved groups. */
  position: z.number().int().nullable(),
  /** When a reserved group is expected to start (RFC 3339). */
  reservedStart: z.string().nullable(),
  /** Its allocated nodes (running) or those reserved for it. */
  nodes: z.array(z.string()),
  /** When its declared deadline ends it (RFC 3339). */
  deadline: z.string().nullable(),
  /** Why it waits, in a sentence. */
  waitingFor: z.string().nullable(),
  reason: GangWaitReason.nullable(),
});
export type GangRow = z.infer<typeof GangRow>;

/** Where the gang scheduler's inspection API is served (through the relay, like every controller API). */
export const GANGS_PATH = "/v1/gangs";

/** The body of `GET /v1/gangs`: one row per group, sorted by namespace then group. */
export const GangList = z.object({
  /** The scheduler's clock when the rows were computed (RFC 3339). */
  now: z.string(),
  items: z.array(GangRow),
});
export type GangList = z.infer<typeof GangList>;
