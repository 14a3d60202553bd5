import type { Decided, Decision } from "./kit/controller.ts";
import type { LedgerClient } from "./deps.ts";
import { Plan, splitKey, type Action } from "../protocol/index.ts";

function withoutClaim(decided: Decided): Action {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { claim, ...action } = decided;
  return action as Action;
}

/**
 * Turns a reconcile decision into a wire plan: each action guarded by a claim is kept
 * only when the namespace's RecreationLedger grants the claim, so a deletion seen twice
 * (replayed event, lagging cache, restarted relay) yields one replacement.
 */
export async function resolveClaims(decision: Decision, key: string, ledger: LedgerClient): Promise<Plan> {
  const { namespace } = splitKey(key);
  const actions: Action[] = [];
  for (const decided of decision.actions) {
    if (decided.claim && !(await ledger.claim(namespace, decided.claim.key, decided.claim.ttlSeconds))) continue;
    actions.push(withoutClaim(decided));
  }
  return Plan.parse({
    actions,
    ...(decision.requeueAfterSeconds === undefined ? {} : { requeueAfterSeconds: decision.requeueAfterSeconds }),
  });
}
