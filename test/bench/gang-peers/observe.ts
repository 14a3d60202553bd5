/**
 * What a watch of pods shows of gangs, whichever scheduler placed them: per group, when
 * its first pod was bound (`spec.nodeName` set), when its last was (the group whole),
 * and when every pod of it had ended (Succeeded or Failed). Pure: fed with the pods a
 * watch delivered and the time each was seen.
 *
 * **Half-placed**, the figure of every peer: a group that, with 1 ≤ bound < size, stayed
 * so for more than {@link PARTIAL_GRACE_MS} (from its first bind until its last), or was
 * still so when the scenario ended. A scheduler binds a group's pods one request each,
 * so every group is partial for the few milliseconds its binds take (a second or so for
 * a rate-limited client binding hundreds of pods at once); more than that is a group
 * holding nodes while it cannot run: what gang scheduling exists to prevent.
 */

/** How long a group may be partly bound while its binds are in flight before it counts as half-placed. */
export const PARTIAL_GRACE_MS = 5_000;

/** The label every pod of the bench carries whatever the peer: its group (the peer's own labels and fields declare it to the scheduler). */
export const BENCH_GROUP_LABEL = "bench.edgeloop.dev/group";
/** The size of that group. */
export const BENCH_SIZE_LABEL = "bench.edgeloop.dev/group-size";

/** What the observer reads of a pod. */
export interface ObservedPod {
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly labels?: Readonly<Record<string, string>> };
  readonly spec?: { readonly nodeName?: string };
  readonly status?: { readonly phase?: string };
}

/** One group as seen so far (times in ms, on the clock the caller feeds). */
export interface GroupSeen {
  readonly size: number;
  readonly bound: number;
  readonly firstBoundAt: number | undefined;
  /** When its last pod was bound. */
  readonly wholeAt: number | undefined;
  /** When every pod had ended (exited, or deleted). */
  readonly endedAt: number | undefined;
}

interface Track {
  size: number;
  bound: Set<string>;
  ended: Set<string>;
  firstBoundAt: number | undefined;
  wholeAt: number | undefined;
  endedAt: number | undefined;
}

/** Groups of one namespace, seen through pod events. */
export class GangObserver {
  readonly #namespace: string;
  readonly #groups = new Map<string, Track>();

  constructor(namespace: string) {
    this.#namespace = namespace;
  }

  /**
   * A pod as an event showed it at `at`; `deleted` for a DELETED event, which ends the pod
   * as its exit does (edgeloop deletes a group at its deadline). Pods of other namespaces
   * or without the bench labels are ignored.
   */
  observe(pod: ObservedPod, at: number, deleted = false): void {
    const group = pod.metadata.labels?.[BENCH_GROUP_LABEL];
    const size = Number(pod.metadata.labels?.[BENCH_SIZE_LABEL]);
    const name = pod.metadata.name;
    if (pod.metadata.namespace !== this.#namespace || group === undefined || name === undefined || !(size > 0)) return;
    const track = this.#groups.get(group) ?? { size, bound: new Set<string>(), ended: new Set<string>(), firstBoundAt: undefined, wholeAt: undefined, endedAt: undefined };
    this.#groups.set(group, track);
    if (pod.spec?.nodeName && !track.bound.has(name)) {
      track.bound.add(name);
      track.firstBoundAt ??= at;
      if (track.bound.size >= track.size) track.wholeAt ??= at;
    }
    if ((deleted || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") && !track.ended.has(name)) {
      track.ended.add(name);
      if (track.ended.size >= track.size) track.endedAt ??= at;
    }
  }

  /** A group as seen so far; undefined before any of its pods was. */
  group(name: string): GroupSeen | undefined {
    const t = this.#groups.get(name);
    return t && { size: t.size, bound: t.bound.size, firstBoundAt: t.firstBoundAt, wholeAt: t.wholeAt, endedAt: t.endedAt };
  }

  /** Pods seen bound, in every group. */
  boundPods(): number {
    return [...this.#groups.values()].reduce((sum, t) => sum + t.bound.size, 0);
  }

  /** Whether every one of `groups` is whole (all its pods bound). */
  whole(groups: readonly string[]): boolean {
    return groups.every((g) => this.#groups.get(g)?.wholeAt !== undefined);
  }

  /** How long each group was partly bound, until its last bind or `end` (ms); groups never partly bound are left out. */
  partialSpans(end: number): Map<string, number> {
    const spans = new Map<string, number>();
    for (const [name, t] of this.#groups) if (t.firstBoundAt !== undefined && t.size > 1) spans.set(name, (t.wholeAt ?? end) - t.firstBoundAt);
    return spans;
  }

  /** The groups half-placed by `end` (see the file's comment): partly bound longer than the grace, or still partly bound at `end`. */
  halfPlaced(end: number, graceMs = PARTIAL_GRACE_MS): string[] {
    return [...this.partialSpans(end)].filter(([name, span]) => span > graceMs || this.#groups.get(name)?.wholeAt === undefined).map(([name]) => name);
  }
}
