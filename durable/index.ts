/** The Durable Object classes the Worker exports (names must match wrangler.jsonc). */
export { RecreationLedger } from "./ledger.ts";
export { Outbox } from "./outbox.ts";
export { ReplayGuard } from "./replay.ts";
