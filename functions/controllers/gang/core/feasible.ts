/**
 * Which nodes pass a pod's placement constraints, computed once per distinct set of
 * constraints and per pass (pods of one Job share theirs), for the nodes of one view.
 */
import { checkNode, type Constraints } from "./node-fit.ts";
import { plural } from "./reason.ts";
import type { ClusterView } from "./view.ts";

/** The nodes a set of constraints allows, now (readiness and cordons counted) and ever (only what lasts). */
export interface Candidates {
  /** A number unique to these constraints within the pass (order of first use). */
  readonly id: number;
  /** Node indices in the view, ascending. */
  readonly now: Int32Array;
  readonly ever: Int32Array;
  /** Why the other nodes are refused now: failure text → node count, sorted by text. */
  readonly refused: ReadonlyMap<string, number>;
}

/** A per-pass cache of candidates by constraints key. Not shared between passes: the view changes. */
export interface Feasibility {
  readonly view: ClusterView;
  readonly cache: Map<string, Candidates>;
}

/** A fresh cache for one view. */
export function feasibility(view: ClusterView): Feasibility {
  return { view, cache: new Map() };
}

/** The candidates for `constraints`: O(nodes) the first time a key is seen in a pass, O(1) after. */
export function candidatesFor(cache: Feasibility, constraints: Constraints): Candidates {
  const known = cache.cache.get(constraints.key);
  if (known !== undefined) return known;
  const now: number[] = [];
  const ever: number[] = [];
  const refused = new Map<string, number>();
  cache.view.nodes.forEach((node, n) => {
    const failure = checkNode(constraints, node, true);
    if (failure === undefined) now.push(n);
    else refused.set(failure.text, (refused.get(failure.text) ?? 0) + 1);
    if (failure === undefined || checkNode(constraints, node, false) === undefined) ever.push(n);
  });
  const sortedRefused = new Map([...refused].sort(([a], [b]) => (a < b ? -1 : 1)));
  const candidates: Candidates = { id: cache.cache.size, now: Int32Array.from(now), ever: Int32Array.from(ever), refused: sortedRefused };
  cache.cache.set(constraints.key, candidates);
  return candidates;
}

/** `0/5 nodes available: 3 × node didn't match the pod's nodeSelector; 2 × node is not Ready`. */
export function refusalText(total: number, candidates: Candidates): string {
  const parts = [...candidates.refused].map(([text, count]) => `${count} × ${text}`);
  return `${candidates.now.length}/${plural(total, "node")} available${parts.length > 0 ? `: ${parts.join("; ")}` : ""}`;
}
