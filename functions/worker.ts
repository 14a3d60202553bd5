/**
 * The Worker entry. `edgeloop:controllers` is generated at bundle time from the
 * controller folders (scripts/lib/bundle.ts), so adding a controller edits no list.
 */
import controllers from "edgeloop:controllers";
import { createApp } from "./app.ts";
import { depsFromEnv } from "./bindings.ts";

export { Outbox, RecreationLedger, ReplayGuard } from "../durable/index.ts";
export * from "edgeloop:durable-objects";

const app = createApp(controllers, depsFromEnv);

export default {
  fetch: app.fetch,
} satisfies ExportedHandler;
