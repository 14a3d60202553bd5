/**
 * `#relay-decided` as Node resolves it (package.json `imports`) for `npm run relay`: the
 * review code of every webhook the controllers have the relay decide (ADR 0034), loaded
 * from the controller folders. The relay image's bundle replaces this module with one that
 * imports the same folders statically (`relayBuildOptions`, ./bundle.ts).
 */
import { relayDecided } from "../../functions/relay-decided.ts";
import { loadControllers } from "./controllers.ts";

/** The reviewers, by webhook name. */
export const decided = relayDecided(await loadControllers());
