/**
 * Every Durable Object class the Worker exports, for the types derived from
 * `durable/table.ts`: `durable/`'s own and those controller families own (the Worker
 * exports the latter from `edgeloop:durable-objects`, generated from each family's
 * `durable.ts`). A family that adds a class adds its binding to the table, wrangler.jsonc
 * (`test/worker/wrangler.test.ts` checks) and one line here, so the compiler proves the
 * class answers its contract (`functions/bindings.ts`). Imported for its types only.
 */
export { Outbox, RecreationLedger, ReplayGuard } from "../durable/index.ts";
export { GangQueue } from "./controllers/gang/durable.ts";
