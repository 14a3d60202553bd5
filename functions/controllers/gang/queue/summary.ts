/**
 * The inspection output: one row per group, from a pass over the stored state (the last
 * pass a batch ran, or one computed for a read), with absolute times only: relative ones
 * ("in 1m55s") are the reader's, from the list's `now`.
 */
import type { GangRow, GangState } from "../api/schema.ts";
import { awaitsScheduling, type Allocation, type GroupSizes, type PassReport, type PodRecord } from "../core/index.ts";

/** What a group's row says. */
export type { GangState } from "../api/schema.ts";

/** One group as `GET /v1/gangs` shows it (`GangRow` of `api/schema.ts`). */
export type GangSummary = GangRow;

/** What the summary reads. */
export interface SummaryInput {
  readonly report: PassReport;
  /** The allocations after the pass (those it started included). */
  readonly allocations: readonly Allocation[];
  /** The pods the pass read (ended groups' old pods left out). */
  readonly pods: readonly PodRecord[];
  /** Deadline timers by group key, ms since the epoch. */
  readonly deadlines: ReadonlyMap<string, number>;
  /** The sizes of groups PodGroup objects declare (a running group's size). */
  readonly sizes?: GroupSizes;
}

/** One row per group, sorted by namespace then group. */
export function summarize(input: SummaryInput): GangSummary[] {
  const { report } = input;
  const present = new Map<string, number>();
  const sizes = new Map<string, number>();
  for (const pod of input.pods) {
    if (!pod.ours || pod.terminal) continue;
    present.set(pod.group.key, (present.get(pod.group.key) ?? 0) + 1);
    sizes.set(pod.group.key, Math.max(sizes.get(pod.group.key) ?? 0, input.sizes?.(pod.group) ?? pod.group.size));
  }
  const rows: GangSummary[] = [];
  const rejected = new Map(report.rejected.map((r) => [r.group, r.reason] as const));
  const waiting = new Map(report.waiting.map((w) => [w.group, w.reason] as const));
  // A group the pass started is running (its allocation's row), no longer queued; a start
  // not recorded (a pass computed for a read only) still shows where it waits.
  const allocated = new Set(input.allocations.map((allocation) => allocation.group));
  const started = new Set(report.starts.filter((start) => allocated.has(start.group)).map((start) => start.group));
  let position = 0;
  for (const group of report.queue) {
    if (started.has(group.key)) continue;
    const reason = rejected.get(group.key);
    if (reason !== undefined) {
      rows.push(row(group.key, "rejected", group.pods.length, group.size, { reason }));
      continue;
    }
    position += 1;
    const reservation = report.reservation?.group === group.key ? report.reservation : undefined;
    if (reservation !== undefined) {
      const nodes = reservation.placed === undefined ? [] : [...new Set(reservation.placed.values())].sort();
      const reservedStart = reservation.at === undefined ? null : new Date(reservation.at).toISOString();
      rows.push(row(group.key, "reserved", group.pods.length, group.size, { position, reservedStart, nodes, reason: reservation.reason }));
    } else rows.push(row(group.key, "pending", group.pods.length, group.size, { position, reason: waiting.get(group.key) ?? null }));
  }
  // A group still arriving says until when it holds its place; one announced by its Job and without pods yet shows too.
  const holding = new Map(report.holding.map((group) => [group.key, group] as const));
  for (const group of [...report.provisional, ...report.holding.filter((h) => h.have === 0)]) {
    const hold = holding.get(group.key);
    const size = hold?.size ?? group.size;
    const until = hold === undefined ? "" : `; holds its place until ${new Date(hold.until).toISOString()}`;
    const waitingFor = "undeclared" in group && group.undeclared === true ? `the PodGroup its pods name, which does not exist${until}` : `${size - group.have} more of ${size} pods${until}`;
    rows.push(row(group.key, "provisional", group.have, size, { waitingFor }));
  }
  for (const allocation of input.allocations) {
    const due = input.deadlines.get(allocation.group);
    const nodes = [...new Set(allocation.pods.map((pod) => pod.node))].sort();
    rows.push(row(allocation.group, "running", present.get(allocation.group) ?? 0, sizes.get(allocation.group) ?? allocation.pods.length, { nodes, deadline: due === undefined ? null : new Date(due).toISOString() }));
  }
  rows.push(...refusedRows(input.pods, new Set(rows.map((r) => `${r.namespace}/${r.group}`))));
  return rows.sort((a, b) => compare(a.namespace, b.namespace) || compare(a.group, b.group));
}

/** A rejected row (size 0: none is valid) per group with no other row whose waiting pods are refused, saying why. */
function refusedRows(pods: readonly PodRecord[], shown: ReadonlySet<string>): GangSummary[] {
  const refused = new Map<string, PodRecord[]>();
  for (const pod of pods) {
    if (pod.group.sizeRefused === undefined || !awaitsScheduling(pod) || shown.has(pod.group.key)) continue;
    refused.set(pod.group.key, [...(refused.get(pod.group.key) ?? []), pod]);
  }
  return [...refused].map(([key, members]) => {
    const [first] = members;
    const more = members.length > 1 ? ` (and ${members.length - 1} more)` : "";
    return row(key, "rejected", members.length, 0, { waitingFor: `pod ${first?.name ?? ""} refused${more}: ${first?.group.sizeRefused ?? ""}` });
  });
}

/** A row with defaults. */
function row(key: string, state: GangState, present: number, size: number, extra: Partial<Omit<GangSummary, "namespace" | "group" | "state" | "present" | "size">>): GangSummary {
  const slash = key.indexOf("/");
  const reason = extra.reason ?? null;
  return {
    namespace: key.slice(0, slash),
    group: key.slice(slash + 1),
    state,
    present,
    size,
    position: extra.position ?? null,
    reservedStart: extra.reservedStart ?? null,
    nodes: extra.nodes ?? [],
    deadline: extra.deadline ?? null,
    waitingFor: extra.waitingFor ?? reason?.text ?? null,
    reason,
  };
}

/** String order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
