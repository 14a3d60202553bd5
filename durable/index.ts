/** The Durable Object classes the Worker exports: each one a `className` of `./table.ts`. */
export { RecreationLedger } from "./ledger/recreation-ledger.ts";
export { Outbox } from "./outbox.ts";
export { ReplayGuard } from "./replay.ts";
