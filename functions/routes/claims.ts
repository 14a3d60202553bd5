import { ClaimRelease, type ClaimReleased } from "../../protocol/index.ts";
import type { WorkerDeps } from "../deps.ts";
import { parseJson } from "../http/body.ts";

/**
 * `POST /v1/claims/release`: the relay hands back the tokens of claimed actions it did
 * not apply (a 409 or a transient error interrupted the plan), and the ledger drops those
 * claims, so the retry's reconcile is granted them again at once instead of after the
 * claim's TTL. The app's ledger client refuses a replayed request before the first drop.
 */
export async function releaseRoute(body: Uint8Array, deps: WorkerDeps): Promise<ClaimReleased> {
  const { claims } = parseJson(body, ClaimRelease);
  let released = 0;
  for (const claim of claims) if (await deps.ledger.release(claim.namespace, claim.key)) released += 1;
  return { released };
}
