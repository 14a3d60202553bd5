/**
 * A whole pass from the Durable Object's state: view, queue, backfill.
 */
import { backfill, type PassResult } from "./backfill.ts";
import type { GroupSizes } from "./declared.ts";
import { holdingGroups, type Announcement, type Holding } from "./hold.ts";
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
  /** Group key → the order the queue first saw it in; groups not in it go after every one that is. */
  readonly order?: ReadonlyMap<string, number>;
  /** Group key → when the queue first saw it, ms. */
  readonly firstSeen?: ReadonlyMap<string, number>;
  /** Groups announced by their Job's pod template before their pods. */
  readonly announced?: readonly Announcement[];
  /** How long a group still arriving holds its place (ms); 0 or absent: it does not. */
  readonly arrivalWindowMs?: number;
  /** Group key → the nodes it held while arriving (one per pod, in match order). */
  readonly pinned?: ReadonlyMap<string, readonly string[]>;
  /** The sizes of groups PodGroup objects declare; without it such groups wait. */
  readonly sizes?: GroupSizes;
}

/** A pass's outcome with what it was computed from, for the inspection output. */
export interface PassReport extends PassResult {
  /** Complete groups in queue order, allocated ones left out. */
  readonly queue: readonly PendingGroup[];
  readonly provisional: readonly ProvisionalGroup[];
  /** The groups still arriving that hold their place in this pass. */
  readonly holding: readonly Holding[];
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
  const order = input.order ?? new Map<string, number>();
  const { complete, provisional } = gatherGroups(input.pods, { started, defaultDurationSeconds: input.defaultDurationSeconds, order, sizes: input.sizes });
  const queue = orderQueue(complete);
  const settled = new Set([...started.groups, ...complete.map((group) => group.key)]);
  const holding = (input.arrivalWindowMs ?? 0) > 0 ? holdingGroups({ now: input.now, windowMs: input.arrivalWindowMs ?? 0, provisional, announced: input.announced ?? [], firstSeen: input.firstSeen ?? new Map(), order, settled, defaultDurationSeconds: input.defaultDurationSeconds }) : [];
  const result = backfill({ now: input.now, queue, allocations: input.allocations, view, holding, ...(input.pinned === undefined ? {} : { pinned: input.pinned }) });
  return { ...result, queue, provisional, holding, view };
}
