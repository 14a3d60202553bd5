import type { Decided, Decision } from "./kit/controller.ts";
import type { LedgerClient } from "./deps.ts";
import { Plan, splitKey, type Action } from "../protocol/index.ts";

/**
 * Per action, whether its claim was granted (`undefined`: it has none). One ledger call
 * for the whole plan: a recreation carries two claims (the create and its Event), and each
 * call was a disk commit of its own.
 */
async function grantedClaims(actions: readonly Decided[], namespace: string | undefined, ledger: LedgerClient): Promise<(boolean | undefined)[]> {
  const claims = actions.flatMap((decided) => (decided.claim ? [decided.claim] : []));
  if (claims.length === 0) return actions.map(() => undefined);
  const answer = await ledger.claimAll(namespace, claims);
  // The app refuses a replay before this answer is read; a ledger reached without it grants nothing.
  const granted = answer.replayed ? claims.map(() => false) : answer.granted;
  let next = 0;
  return actions.map((decided) => (decided.claim ? granted[next++] === true : undefined));
}

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
  const granted = await grantedClaims(decision.actions, namespace, ledger);
  const actions = decision.actions.filter((_, index) => granted[index] !== false).map((decided) => withToken(decided, namespace));
  return Plan.parse({
    actions,
    ...(decision.requeueAfterSeconds === undefined ? {} : { requeueAfterSeconds: decision.requeueAfterSeconds }),
    ...(decision.concurrency === undefined ? {} : { concurrency: decision.concurrency }),
  });
}
