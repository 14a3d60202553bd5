/** Every conformance scenario, in the order they run. */
import type { Scenario } from "../scenario.ts";
import { clients } from "./clients.ts";
import { core } from "./core.ts";
import { lifecycle } from "./lifecycle.ts";
import { queries } from "./query.ts";
import { watches } from "./watch.ts";
import { writes } from "./writes.ts";

export const SCENARIOS: readonly Scenario[] = [...core, ...watches, ...writes, ...clients, ...queries, ...lifecycle];
