/**
 * A whole pass from the Durable Object's state: view, queue, backfill.
 */
import { backfill, type PassResult } from "./backfill.ts";
import type { GroupSizes } from "./declared.ts";
import { gatherGroups, orderQueue, type PendingGroup, type ProvisionalGroup } from "./queue.ts";
import type { NodeRecord, PodRecord } from "./records.ts";
import { buildView, type Allocation, type ClusterView } from "./view.ts";

/** What the Durable Object keeps and hands to a pass. */
export interface PassInput {
  /** Now, ms since the epoch. */
  readonly now: number;
  /** Every node, parsed with `parseNode`. */
  readonly nodes: readonly NodeRecord[];
  /** Every pod of every scheduler, parsed with `parsePod`: bound ones make the usage, ours unbound make the queue. */
  readonly pods: readonly PodRecord[];
  /** Our running allocations (`GroupStart.allocation` of earlier passes, until the group is cleaned up). */
  readonly allocations: readonly Allocation[];
  /** The duration of a group whose pods set no `activeDeadlineSeconds`; undefined: no known end. */
  readonly defaultDurationSeconds?: number | undefined;
  /** The sizes of groups PodGroup objects declare; without it such groups wait. */
  readonly sizes?: GroupSizes;
}

/** A pass's outcome with what it was computed from, for the inspection output. */
export interface PassReport extends PassResult {
  /** Complete groups in queue order, allocated ones left out. */
  readonly queue: readonly PendingGroup[];
  readonly provisional: readonly ProvisionalGroup[];
  readonly view: ClusterView;
}

/**
 * Builds the view and the queue, then runs the backfill pass. The pods an allocation
 * holds are not queued again; a started group's other waiting pods are queued as they are
 * (a start for them extends the group's allocation).
 */
export function schedulePass(input: PassInput): PassReport {
  const view = buildView(input.nodes, input.pods, input.allocations);
  const started = { groups: new Set(input.allocations.map((allocation) => allocation.group)), pods: new Set(input.allocations.flatMap((allocation) => allocation.pods.map((pod) => pod.uid))) };
  const { complete, provisional } = gatherGroups(input.pods, { started, defaultDurationSeconds: input.defaultDurationSeconds, sizes: input.sizes });
  const queue = orderQueue(complete);
  return { ...backfill({ now: input.now, queue, allocations: input.allocations, view }), queue, provisional, view };
}
