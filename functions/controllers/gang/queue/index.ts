/**
 * The gang scheduler's state machine over SQL: `GangQueueLogic` (wrapped by the Durable
 * Object), its `Sql` interface (Cloudflare's `SqlStorage` subset) and the inspection rows.
 */
export { GangQueueLogic, type GangQueueOptions } from "./scheduler.ts";
export type { Sql, SqlCursor, SqlStorageValue } from "../../../kit/sql.ts";
export type { GangState, GangSummary } from "./summary.ts";
