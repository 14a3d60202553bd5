/**
 * One scheduling pass with EASY backfill. Groups are walked in queue order:
 * - a group that could not fit even on the empty cluster is rejected and skipped (it never
 *   blocks the queue);
 * - until the first group that does not fit, every group that fits starts;
 * - the first group that does not fit gets the pass's only reservation: the earliest end
 *   time of a running group (released in end-time order, groups started in this pass
 *   included) at which the matcher places it on the future view; "never within known
 *   ends" when even releasing every group with a known end is not enough;
 * - after it, a group starts only if it fits now and does not delay the reservation: it
 *   ends no later than the reservation's time, or the reservation still fits at that time
 *   with this group's resources held (first checked against the planned placement, then
 *   by re-running the matcher). With no reservation time, only groups with a known end
 *   may backfill.
 *
 * - a group still arriving that holds its place (`hold.ts`) is walked like a complete group
 *   at its place in the order: it takes room now (nothing is bound: the room is held), gets
 *   the reservation, or waits, and what follows it is decided around it;
 * - a group with a pinned placement (the place it held while arriving) goes there first
 *   if it still fits, so its pods land where all-at-once arrival would have put them.
 *
 * Cost: one match per group (failures of an identical shape are remembered, since free
 * room only shrinks during a pass), one empty-cluster match per distinct shape, and for
 * the reservation one match per distinct end time whose released total can cover it.
 */
import { feasibility, type Feasibility } from "./feasible.ts";
import type { Holding } from "./hold.ts";
import { compileGroup, explainWait, fitsEver, placePinned, placements, tryPlace, type MatchGroup } from "./matcher.ts";
import { compareGroups, type PendingGroup } from "./queue.ts";
import { plural, type WaitReason } from "./reason.ts";
import { give, take, type Allocation, type ClusterView, type Held } from "./view.ts";

/** What a pass reads. */
export interface BackfillInput {
  /** Now, ms since the epoch: the start time of what starts, the base of end times. */
  readonly now: number;
  /** Complete groups in queue order (see `orderQueue`). */
  readonly queue: readonly PendingGroup[];
  /** The running allocations (their holdings are in `view.held`). */
  readonly allocations: readonly Allocation[];
  readonly view: ClusterView;
  /** A feasibility cache for `view`, when the caller already has one. */
  readonly feasibility?: Feasibility;
  /** Groups still arriving that hold their place (walked in order with the queue). */
  readonly holding?: readonly Holding[];
  /** Group key → the nodes it held (one per pod, in match order): tried first. */
  readonly pinned?: ReadonlyMap<string, readonly string[]>;
}

/** The room a group still arriving holds now. */
export interface Hold {
  readonly group: string;
  /** One node name per pod, in match order (what `pinned` takes back). */
  readonly nodes: readonly string[];
}

/** A group to start now: bind every pod to its node, then keep `allocation`. */
export interface GroupStart {
  readonly group: string;
  /** Pod uid → node name. */
  readonly placed: ReadonlyMap<string, string>;
  readonly allocation: Allocation;
  /** It started behind the reservation. */
  readonly backfilled: boolean;
}

/** The reservation of the first group that does not fit. */
export interface Reservation {
  readonly group: string;
  /** When it is expected to fit, ms since the epoch; undefined: never within known ends. */
  readonly at: number | undefined;
  /** Where it would go at that time (pod uid → node name), when `at` is known. */
  readonly placed: ReadonlyMap<string, string> | undefined;
  /** Why it does not fit now. */
  readonly reason: WaitReason;
}

/** A group that does not start, and why. */
export interface Waiting {
  readonly group: string;
  readonly reason: WaitReason;
}

/** The outcome of a pass; every list in queue order. */
export interface PassResult {
  readonly starts: readonly GroupStart[];
  readonly reservation: Reservation | undefined;
  /** Groups behind the reservation that do not start. */
  readonly waiting: readonly Waiting[];
  /** Groups that could never fit on this cluster. */
  readonly rejected: readonly Waiting[];
  /** Groups still arriving that hold room now. */
  readonly holds: readonly Hold[];
}

/** A running group as the reservation sees it. */
interface Running {
  readonly group: string;
  readonly end: number;
  readonly held: readonly Held[];
}

/** The reservation while the pass goes on: `future` is free at `at` without it, `after` with it, `needs` what it takes per node. */
interface Reserved {
  readonly group: MatchGroup;
  readonly at: number | undefined;
  readonly reason: WaitReason;
  future: Float64Array;
  after: Float64Array;
  needs: Float64Array;
  assigned: Int32Array;
}

/** Runs one pass. Pure: the view is not changed. */
export function backfill(input: BackfillInput): PassResult {
  const { view, now } = input;
  const cache = input.feasibility ?? feasibility(view);
  const free = view.free.slice();
  const running: Running[] = [
    ...input.allocations.map((a) => ({ group: a.group, end: a.endsAt ?? Infinity, held: view.held.get(a.group) ?? [] })),
    // Pods being deleted free their room when they are gone (at the latest by their deletion time).
    ...view.releasing.map((release) => ({ group: "", end: Math.max(release.at, now), held: [{ node: release.node, request: release.request }] })),
  ];
  const satisfiable = new Map<string, boolean>();
  const failedShapes = new Map<string, WaitReason>();
  const starts: GroupStart[] = [];
  const waiting: Waiting[] = [];
  const rejected: Waiting[] = [];
  const holds: Hold[] = [];
  let reserved: Reserved | undefined;
  for (const { group, holding } of walk(input.queue, input.holding ?? [])) {
    const match = compileGroup(cache, group);
    let ever = satisfiable.get(match.shape);
    if (ever === undefined) satisfiable.set(match.shape, (ever = fitsEver(match, view)));
    if (!ever) {
      // A group still arriving is judged when it is complete (its stand-ins are a guess).
      if (!holding) rejected.push({ group: group.key, reason: unsatisfiable(view, match) });
      continue;
    }
    const pin = input.pinned?.get(group.key);
    const pinned = pin === undefined ? undefined : placePinned(view, match, free, pin);
    // A shape that failed in this pass fails again (free room only shrinks), for the same
    // reason as far as a person reading it cares: explaining each of a thousand equal
    // groups anew was a third of a pass.
    const known = failedShapes.get(match.shape);
    const outcome = pinned !== undefined ? { assigned: pinned } : known !== undefined ? { waits: { ...known, pods: group.pods.length } } : tryPlace(view, match, free);
    if ("waits" in outcome) {
      failedShapes.set(match.shape, outcome.waits);
      if (reserved === undefined) reserved = reserve(view, match, free, running, now, outcome.waits);
      else waiting.push({ group: group.key, reason: outcome.waits });
      continue;
    }
    const end = group.durationSeconds === undefined ? Infinity : now + group.durationSeconds * 1000;
    if (reserved !== undefined && !keepsReservation(view, reserved, match, outcome.assigned, end)) {
      match.pods.forEach((pod, i) => give(free, view.dims.length, outcome.assigned[i] ?? 0, pod.request));
      waiting.push({ group: group.key, reason: delays(reserved, group.pods.length) });
      continue;
    }
    if (holding) holds.push({ group: group.key, nodes: [...outcome.assigned].map((node) => view.nodes[node]?.name ?? "") });
    else starts.push(startOf(view, group, match, outcome.assigned, now, end, reserved !== undefined));
    running.push({ group: group.key, end, held: match.pods.map((pod, i) => ({ node: outcome.assigned[i] ?? 0, request: pod.request })) });
  }
  const reservation = reserved === undefined ? undefined : { group: reserved.group.key, at: reserved.at, placed: reserved.at === undefined ? undefined : placements(view, reserved.group, reserved.assigned), reason: reserved.reason };
  return { starts, reservation, waiting, rejected, holds };
}

/** The queue and the groups holding their place, merged in queue order (both already sorted). */
function* walk(queue: readonly PendingGroup[], holding: readonly Holding[]): Generator<{ readonly group: Pick<PendingGroup, "key" | "pods" | "durationSeconds">; readonly holding: boolean }> {
  const arriving = [...holding].sort(compareGroups);
  let h = 0;
  for (const group of queue) {
    for (; h < arriving.length && compareGroups(arriving[h] as Holding, group) < 0; h += 1) yield { group: arriving[h] as Holding, holding: true };
    yield { group, holding: false };
  }
  for (; h < arriving.length; h += 1) yield { group: arriving[h] as Holding, holding: true };
}

/** The start of a placed group. */
function startOf(view: ClusterView, group: Pick<PendingGroup, "key" | "pods">, match: MatchGroup, assigned: Int32Array, now: number, end: number, backfilled: boolean): GroupStart {
  const placed = placements(view, match, assigned);
  const byUid = new Map(group.pods.map((pod) => [pod.uid, pod] as const));
  const pods = [...placed].map(([uid, node]) => ({ uid, node, request: byUid.get(uid)?.request ?? { cpu: 0, memory: 0, pods: 1, scalar: {} } }));
  return { group: group.key, placed, allocation: { group: group.key, pods, startedAt: now, endsAt: Number.isFinite(end) ? end : undefined }, backfilled };
}

/**
 * The reservation of `match`: walks the distinct end times of running groups in order,
 * releasing what each held, and tries the matcher at each time whose released total
 * covers the group's total request on its candidate nodes.
 */
function reserve(view: ClusterView, match: MatchGroup, free: Float64Array, running: readonly Running[], now: number, reason: WaitReason): Reserved {
  const width = view.dims.length;
  const future = free.slice();
  const ending = running.filter((r) => Number.isFinite(r.end)).sort((a, b) => a.end - b.end || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  const union = new Uint8Array(view.nodes.length);
  for (const pod of match.pods) for (const node of pod.candidates.now) union[node] = 1;
  const need = new Float64Array(width);
  for (const pod of match.pods) for (let d = 0; d < width; d += 1) need[d] = (need[d] ?? 0) + (pod.request[d] ?? 0);
  const have = new Float64Array(width);
  union.forEach((member, node) => {
    if (member === 1) for (let d = 0; d < width; d += 1) have[d] = (have[d] ?? 0) + Math.max(0, future[node * width + d] ?? 0);
  });
  for (let i = 0; i < ending.length; ) {
    const at = (ending[i] as Running).end;
    for (; i < ending.length && (ending[i] as Running).end === at; i += 1) {
      for (const held of (ending[i] as Running).held) {
        const base = held.node * width;
        for (let d = 0; d < width; d += 1) {
          const before = future[base + d] ?? 0;
          const after = before + (held.request[d] ?? 0);
          future[base + d] = after;
          if (union[held.node] === 1) have[d] = (have[d] ?? 0) + Math.max(0, after) - Math.max(0, before);
        }
      }
    }
    if (need.some((n, d) => n > (have[d] ?? 0))) continue;
    const base = future.slice();
    const outcome = tryPlace(view, match, future);
    if ("assigned" in outcome) return { group: match, at: Math.max(at, now), reason, future: base, after: future, needs: needsOf(view, match, outcome.assigned), assigned: outcome.assigned };
  }
  const never = { ...reason, text: `${reason.text}; reservation: never within known ends` };
  return { group: match, at: undefined, reason: never, future, after: future, needs: new Float64Array(0), assigned: new Int32Array(0) };
}

/** What the reservation takes on each node (row-major like the view). */
function needsOf(view: ClusterView, match: MatchGroup, assigned: Int32Array): Float64Array {
  const needs = new Float64Array(view.free.length);
  match.pods.forEach((pod, i) => give(needs, view.dims.length, assigned[i] ?? 0, pod.request));
  return needs;
}

/**
 * Whether a group placed now at `assigned`, ending at `end`, leaves the reservation where
 * it is; when it does, its holdings are recorded in the reservation's future view.
 */
function keepsReservation(view: ClusterView, reserved: Reserved, match: MatchGroup, assigned: Int32Array, end: number): boolean {
  if (reserved.at === undefined) return Number.isFinite(end);
  if (end <= reserved.at) return true;
  const width = view.dims.length;
  match.pods.forEach((pod, i) => take(reserved.after, width, assigned[i] ?? 0, pod.request));
  const intact = match.pods.every((_, i) => {
    const base = (assigned[i] ?? 0) * width;
    for (let d = 0; d < width; d += 1) if ((reserved.needs[base + d] ?? 0) > 0 && (reserved.after[base + d] ?? 0) < 0) return false;
    return true;
  });
  if (intact) {
    match.pods.forEach((pod, i) => take(reserved.future, width, assigned[i] ?? 0, pod.request));
    return true;
  }
  match.pods.forEach((pod, i) => give(reserved.after, width, assigned[i] ?? 0, pod.request));
  match.pods.forEach((pod, i) => take(reserved.future, width, assigned[i] ?? 0, pod.request));
  const scratch = reserved.future.slice();
  const outcome = tryPlace(view, reserved.group, scratch);
  if ("assigned" in outcome) {
    reserved.after = scratch;
    reserved.assigned = outcome.assigned;
    reserved.needs = needsOf(view, reserved.group, outcome.assigned);
    return true;
  }
  match.pods.forEach((pod, i) => give(reserved.future, width, assigned[i] ?? 0, pod.request));
  return false;
}

/** The reason of a group that would delay the reservation. */
function delays(reserved: Reserved, pods: number): WaitReason {
  const at = reserved.at === undefined ? "an unknown time" : new Date(reserved.at).toISOString();
  const text = `fits now, but its ${plural(pods, "pod")} would delay the reservation of ${reserved.group.key} at ${at}`;
  return { kind: "delays-reservation", resource: undefined, short: 0, pods, nodes: 0, text };
}

/** The reason of a group that could never fit: why it does not fit on the empty cluster. */
function unsatisfiable(view: ClusterView, match: MatchGroup): WaitReason {
  const empty = view.allocatable.slice();
  const why = explainWait(view, match, empty, 0);
  return { ...why, kind: "unsatisfiable", text: `can never fit on this cluster: ${why.text}` };
}
