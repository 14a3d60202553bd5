/**
 * `#relay-decided` as Node resolves it (package.json `imports`) for `npm run relay`: the
 * review code of the webhooks the relay decides itself (ADR 0034), every family's
 * `relay-webhooks.ts`. The relay image's bundle replaces this module with one that imports
 * the same files statically (`relayBuildOptions`, ./bundle.ts).
 */
import { relayDecided } from "../../functions/relay-decided.ts";
import { loadRelayWebhooks } from "./controllers.ts";

/** The reviewers, by webhook name. */
export const decided = relayDecided(await loadRelayWebhooks());
