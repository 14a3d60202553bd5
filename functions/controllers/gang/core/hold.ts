/**
 * Groups still arriving that hold their place in the queue (ADR 0025). A Job's pods reach
 * the queue one by one, and not in the order their Jobs were created; if only complete
 * groups were queued, a later group whose pods happened to arrive first would take the
 * room of an earlier one still arriving. So, for a bounded arrival window, a group still
 * short of pods — or announced by its Job's pod template before any pod exists — takes its
 * place in the queue as if it were complete: its missing pods are assumed to ask what its
 * template asks (or, without one, what its largest present pod asks), and the pass places
 * (or reserves) it without binding anything. What it holds is kept, so that when its last
 * pod arrives it goes where all-at-once arrival would have put it.
 */
import { durationOf, type OrderKey, type ProvisionalGroup } from "./queue.ts";
import type { PodRecord } from "./records.ts";

/** A group announced before its pods: a Job whose pod template is ours and names a group. */
export interface Announcement {
  /** `namespace/group`. */
  readonly key: string;
  /** The group size its template declares. */
  readonly size: number;
  /** The template, parsed as a pod (`parsePod`). */
  readonly template: PodRecord;
  /** The Job's `creationTimestamp`, ms. */
  readonly createdAt: number;
}

/** A group holding its place: the pods it is expected to have, present ones and stand-ins. */
export interface Holding extends OrderKey {
  readonly size: number;
  /** How many of its pods are present. */
  readonly have: number;
  /** The present pods, then one stand-in per missing pod (uid `<key>#<n>`). */
  readonly pods: readonly PodRecord[];
  readonly durationSeconds: number | undefined;
  /** Until when it holds its place, ms since the epoch. */
  readonly until: number;
}

/** What decides which groups hold. */
export interface HoldInput {
  readonly now: number;
  /** How long a group may hold its place, counted from the first sign of it (ms). */
  readonly windowMs: number;
  /** Groups still gathering pods. */
  readonly provisional: readonly ProvisionalGroup[];
  /** Announcements by group key (several Jobs may announce one group: the largest size wins). */
  readonly announced: readonly Announcement[];
  /** Group key → when the queue first saw it (ms). */
  readonly firstSeen: ReadonlyMap<string, number>;
  /** Group key → its order (the Durable Object's counter). */
  readonly order: ReadonlyMap<string, number>;
  /** Groups that are complete or started: an announcement of theirs holds nothing. */
  readonly settled: ReadonlySet<string>;
  /** The duration of a group whose pods set no `activeDeadlineSeconds`. */
  readonly defaultDurationSeconds?: number | undefined;
}

/**
 * The groups that hold their place at `now`: each provisional or announced group whose
 * first sign (its first pod seen, the earliest creation time of its pods or Job) is less
 * than the window ago. An announced group with no template to copy holds nothing.
 */
export function holdingGroups(input: HoldInput): Holding[] {
  const announced = byKey(input.announced);
  const holding: Holding[] = [];
  for (const group of input.provisional) {
    const announcement = announced.get(group.key);
    const template = announcement?.template ?? largest(group.pods);
    const size = Math.max(group.size, announcement?.size ?? 0);
    const since = Math.min(group.createdAt, input.firstSeen.get(group.key) ?? input.now, announcement?.createdAt ?? Infinity);
    const hold = holdOf(input, { key: group.key, size, present: group.pods, template, since, seq: group.seq, createdAt: group.createdAt });
    if (hold !== undefined) holding.push(hold);
  }
  const provisional = new Set(input.provisional.map((group) => group.key));
  for (const [key, announcement] of announced) {
    if (provisional.has(key) || input.settled.has(key)) continue;
    const since = Math.min(announcement.createdAt, input.firstSeen.get(key) ?? input.now);
    const hold = holdOf(input, { key, size: announcement.size, present: [], template: announcement.template, since, seq: input.order.get(key), createdAt: announcement.createdAt });
    if (hold !== undefined) holding.push(hold);
  }
  return holding;
}

/** One group's hold, or undefined when its window is over or nothing says what its pods ask. */
function holdOf(input: HoldInput, group: { key: string; size: number; present: readonly PodRecord[]; template: PodRecord | undefined; since: number; seq: number | undefined; createdAt: number }): Holding | undefined {
  const until = group.since + input.windowMs;
  if (input.now >= until || group.template === undefined || group.seq === undefined) return undefined;
  const template = group.template;
  const standIns = Array.from({ length: Math.max(0, group.size - group.present.length) }, (_, i): PodRecord => ({ ...template, uid: `${group.key}#${i}`, name: `${template.name}#${i}` }));
  const pods = [...group.present, ...standIns];
  return {
    key: group.key,
    seq: group.seq,
    createdAt: group.createdAt,
    priority: Math.max(0, ...pods.map((pod) => pod.priority)),
    size: group.size,
    have: group.present.length,
    pods,
    durationSeconds: durationOf(pods, input.defaultDurationSeconds),
    until,
  };
}

/** The pod asking the most (cpu, then memory): what a missing pod is assumed to ask without a template. */
function largest(pods: readonly PodRecord[]): PodRecord | undefined {
  let best: PodRecord | undefined;
  for (const pod of pods) if (best === undefined || pod.request.cpu > best.request.cpu || (pod.request.cpu === best.request.cpu && pod.request.memory > best.request.memory)) best = pod;
  return best;
}

/** Announcements by key, the largest size of each. */
function byKey(announced: readonly Announcement[]): Map<string, Announcement> {
  const out = new Map<string, Announcement>();
  for (const announcement of announced) {
    const known = out.get(announcement.key);
    if (known === undefined || announcement.size > known.size || (announcement.size === known.size && announcement.createdAt < known.createdAt)) out.set(announcement.key, announcement);
  }
  return out;
}
