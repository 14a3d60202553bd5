/** Every conformance scenario, in the order they run. */
import type { Scenario } from "../scenario.ts";
import { core } from "./core.ts";

export const SCENARIOS: readonly Scenario[] = [...core];
