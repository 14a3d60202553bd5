import type { Decided, Decision } from "./kit/controller.ts";
import type { LedgerClient } from "./deps.ts";
import { Plan, splitKey, type Action } from "../protocol/index.ts";

/** The wire action: the claim replaced by its release token (the relay hands it back if the action is not applied). */
function withToken(decided: Decided, namespace: string | undefined): Action {
  const { claim, ...action } = decided;
  if (!claim) return action as Action;
  return { ...action, release: { ...(namespace === undefined ? {} : { namespace }), key: claim.key } } as Action;
}

/**
 * Turns a reconcile decision into a wire plan: each action guarded by a claim is kept
 * only when the namespace's RecreationLedger grants the claim, so a deletion seen twice
 * (replayed event, lagging cache, restarted relay) yields one replacement. A kept action
 * carries the claim's release token: a claim is spent only by an action that happened.
 */
export async function resolveClaims(decision: Decision, key: string, ledger: LedgerClient): Promise<Plan> {
  const { namespace } = splitKey(key);
  const actions: Action[] = [];
  for (const decided of decision.actions) {
    if (decided.claim && !(await ledger.claim(namespace, decided.claim.key, decided.claim.ttlSeconds))) continue;
    actions.push(withToken(decided, namespace));
  }
  return Plan.parse({
    actions,
    ...(decision.requeueAfterSeconds === undefined ? {} : { requeueAfterSeconds: decision.requeueAfterSeconds }),
    ...(decision.concurrency === undefined ? {} : { concurrency: decision.concurrency }),
  });
}
