/**
 * The pending queue: groups whose pods have all arrived, in the order a pass walks them —
 * priority (highest first), then the order in which the queue first saw the group (its
 * `seq`: a counter the Durable Object keeps, ADR 0025), never the group's name. Groups
 * still gathering pods are kept too, with the same order key, so that one ahead in the
 * queue can hold its place (`hold.ts`).
 */
import { groupSize, type GroupSizes } from "./declared.ts";
import { UNKNOWN_TIME, type PodRecord } from "./records.ts";

/** A group with all its pods: what the pass places. */
export interface PendingGroup {
  /** `namespace/group`. */
  readonly key: string;
  readonly size: number;
  /** The highest `spec.priority` among its pods. */
  readonly priority: number;
  /** The earliest creation time among its pods, ms since the epoch. */
  readonly createdAt: number;
  /** Its place in the order groups were first seen (smaller: earlier); {@link UNSEEN} when not known. */
  readonly seq: number;
  /** Its pods, sorted by uid; at least `size` of them. */
  readonly pods: readonly PodRecord[];
  /** How long it runs once started: the largest `activeDeadlineSeconds` of its pods, else the default; undefined = no known end. */
  readonly durationSeconds: number | undefined;
}

/** A group still gathering its pods. */
export interface ProvisionalGroup {
  readonly key: string;
  readonly have: number;
  readonly size: number;
  readonly createdAt: number;
  readonly seq: number;
  /** The highest `spec.priority` among the pods present (0 with none). */
  readonly priority: number;
  /** The pods present, sorted by uid (none when only a template announced the group). */
  readonly pods: readonly PodRecord[];
  /** As {@link PendingGroup.durationSeconds}, from the pods present. */
  readonly durationSeconds: number | undefined;
  /** Its pods name a PodGroup not known (yet): it waits for that object (`size` is 0). */
  readonly undeclared?: true;
}

/** The order key of a group the queue has not numbered (a pure call without `order`): after every numbered one. */
export const UNSEEN = Number.MAX_SAFE_INTEGER;

/** Options for gathering groups. */
export interface GatherOptions {
  /** Groups to leave out. */
  readonly exclude?: ReadonlySet<string>;
  /**
   * Groups already started (they have an allocation) and the pods their allocations hold:
   * a started group's other waiting pods (a Job's replacement for a failed pod, a pod
   * beyond the group's size) are complete as they are, a group of their own count.
   */
  readonly started?: { readonly groups: ReadonlySet<string>; readonly pods: ReadonlySet<string> };
  /** The duration of a group whose pods set no `activeDeadlineSeconds`; undefined = no known end. */
  readonly defaultDurationSeconds?: number | undefined;
  /** The sizes of the groups PodGroup objects declare (`declared.ts`); without it such groups wait. */
  readonly sizes?: GroupSizes;
  /** Group key → the order it was first seen in (the Durable Object's counter). */
  readonly order?: ReadonlyMap<string, number>;
}

/** Whether a pod waits for us: ours, unbound, not finished, not being deleted. */
export function awaitsScheduling(pod: PodRecord): boolean {
  return pod.ours && pod.nodeName === undefined && !pod.terminal && !pod.deleting && pod.uid !== "";
}

/**
 * Sorts pods waiting for us into complete groups (at least `size` distinct pods: a pod seen
 * twice counts once) and provisional ones. The group's size is the largest its pods
 * declare (`groupSize`). Both lists are sorted by key. O(pods log pods).
 */
export function gatherGroups(pods: readonly PodRecord[], options: GatherOptions = {}): { readonly complete: PendingGroup[]; readonly provisional: ProvisionalGroup[] } {
  const byGroup = new Map<string, Map<string, PodRecord>>();
  for (const pod of pods) {
    // A pod whose size label is refused joins no group (the queue object reports it).
    if (!awaitsScheduling(pod) || pod.group.sizeRefused !== undefined || options.exclude?.has(pod.group.key) === true || options.started?.pods.has(pod.uid) === true) continue;
    let members = byGroup.get(pod.group.key);
    if (members === undefined) byGroup.set(pod.group.key, (members = new Map()));
    members.set(pod.uid, pod);
  }
  const complete: PendingGroup[] = [];
  const provisional: ProvisionalGroup[] = [];
  for (const key of [...byGroup.keys()].sort()) {
    const members = [...(byGroup.get(key) ?? new Map<string, PodRecord>()).values()].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const size = options.started?.groups.has(key) === true ? members.length : groupSize(members, options.sizes);
    const createdAt = Math.min(UNKNOWN_TIME, ...members.map((pod) => pod.createdAt));
    const common = { key, size: size ?? 0, createdAt, seq: options.order?.get(key) ?? UNSEEN, priority: Math.max(...members.map((pod) => pod.priority)), pods: members, durationSeconds: durationOf(members, options.defaultDurationSeconds) };
    if (size === undefined) provisional.push({ ...common, have: members.length, undeclared: true });
    else if (members.length < size) provisional.push({ ...common, have: members.length });
    else complete.push(common);
  }
  return { complete, provisional };
}

/** How long a group runs: the largest `activeDeadlineSeconds` of its pods, else `fallback`. */
export function durationOf(pods: readonly PodRecord[], fallback: number | undefined): number | undefined {
  const deadlines = pods.map((pod) => pod.deadlineSeconds).filter((d): d is number => d !== undefined);
  return deadlines.length > 0 ? Math.max(...deadlines) : fallback;
}

/** What orders the queue. */
export type OrderKey = Pick<PendingGroup, "key" | "priority" | "createdAt" | "seq">;

/**
 * The queue order: negative when `a` goes first. Priority, then the order first seen.
 * Creation time and then the key only order groups no counter numbered (pure calls in
 * tests); the Durable Object numbers every group, so a name never decides there.
 */
export function compareGroups(a: OrderKey, b: OrderKey): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.seq !== b.seq) return a.seq - b.seq;
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The groups in queue order (a new array). */
export function orderQueue<T extends OrderKey>(groups: readonly T[]): T[] {
  return [...groups].sort(compareGroups);
}
