/**
 * Self-heal accounting by worker slot, the same for any controller (edgeloop or upstream
 * Sedna's GlobalManager): a slot is one worker of one Sedna object on one node
 * (`namespace/kind/name/worker-type/node`, from the labels upstream's `generateLabels` and
 * edgeloop's `workerLabels` both put on every worker pod), so a replacement is recognised
 * whatever the controller names its pods. A deletion is healed when a pod of the same slot
 * that was not live before the deletion reaches phase Running; every pod created in a slot
 * while a deletion of it waits, or after it healed, counts as one replacement: more than
 * one per deletion is a duplicate.
 */
import type { KubeObject } from "../../../protocol/index.ts";

/** The Sedna kinds whose workers are tracked, by label prefix. */
const KINDS = ["federatedlearningjob", "jointinferenceservice"] as const;

/** A pod's slot, or `undefined` for a pod that is no Sedna worker of a tracked kind. */
export function slotOf(pod: KubeObject): string | undefined {
  const labels = pod.metadata.labels ?? {};
  const node = (pod as { spec?: { nodeName?: string } }).spec?.nodeName ?? "";
  for (const kind of KINDS) {
    const name = labels[`${kind}.sedna.io/name`];
    const type = labels[`${kind}.sedna.io/worker-type`];
    if (name !== undefined && type !== undefined) return `${pod.metadata.namespace ?? ""}/${kind}/${name}/${type}/${node}`;
  }
  return undefined;
}

/** One healed deletion: ms from the delete call to the replacement's creation and to its Running. */
export interface Heal {
  readonly slot: string;
  readonly createdMs: number;
  readonly runningMs: number;
}

/** What the tracker counted since it started. */
export interface SlotCounts {
  readonly heals: readonly Heal[];
  /** Deletions recorded with {@link SlotTracker.deleted}. */
  readonly deletions: number;
  /** Pods created in a slot after a deletion of it (the replacements, duplicates included). */
  readonly replacements: number;
  /** Replacements beyond one per deletion (target 0). */
  readonly duplicates: number;
  /** Slots whose deletion has no Running replacement yet. */
  readonly waiting: number;
}

interface Pending {
  readonly since: number;
  /** The deleted pod's uid. */
  readonly victim: string;
  createdAt?: number;
  replacement?: string;
}

/**
 * Tracks the pods of every slot from a watch's events. Feed it every Pod event
 * ({@link observe}) and call {@link deleted} just before each delete call.
 */
export class SlotTracker {
  /** Live pod uid → slot. */
  private readonly live = new Map<string, string>();
  /** Slot → its deletion not yet healed. */
  private readonly pending = new Map<string, Pending>();
  /** Slot → deletions of it recorded, and pods created in it after the first. */
  private readonly perSlot = new Map<string, { deletions: number; created: number }>();
  private readonly heals: Heal[] = [];
  /** Uids deleted through {@link deleted}: a late event of one (a status update sent before the delete) is no new pod. */
  private readonly gone = new Set<string>();

  /** One Pod event, at `now` (ms, the clock {@link deleted} is given). */
  observe(type: "ADDED" | "MODIFIED" | "DELETED", pod: KubeObject, now: number): void {
    const slot = slotOf(pod);
    const uid = pod.metadata.uid ?? "";
    if (slot === undefined || this.gone.has(uid)) return;
    if (type === "DELETED" || pod.metadata.deletionTimestamp) {
      this.live.delete(uid);
      return;
    }
    if (!this.live.has(uid)) this.created(slot, uid, now);
    const pending = this.pending.get(slot);
    if (pending?.replacement === uid && (pod as { status?: { phase?: string } }).status?.phase === "Running") {
      this.heals.push({ slot, createdMs: (pending.createdAt ?? now) - pending.since, runningMs: now - pending.since });
      this.pending.delete(slot);
    }
  }

  private created(slot: string, uid: string, now: number): void {
    this.live.set(uid, slot);
    const counts = this.perSlot.get(slot);
    if (counts !== undefined) counts.created += 1;
    const pending = this.pending.get(slot);
    if (pending !== undefined && pending.replacement === undefined) {
      pending.replacement = uid;
      pending.createdAt = now;
    }
  }

  /** Records the deletion of live pod `uid` at `now`; returns its slot (undefined for a pod not tracked, or a slot already waiting). */
  deleted(uid: string, now: number): string | undefined {
    const slot = this.live.get(uid);
    if (slot === undefined || this.pending.has(slot)) return undefined;
    this.live.delete(uid);
    this.gone.add(uid);
    this.pending.set(slot, { since: now, victim: uid });
    const counts = this.perSlot.get(slot) ?? { deletions: 0, created: 0 };
    counts.deletions += 1;
    this.perSlot.set(slot, counts);
    return slot;
  }

  /** Forgets a deletion whose call failed (nothing was deleted): its pod is live again. */
  undo(slot: string): void {
    const pending = this.pending.get(slot);
    if (pending === undefined) return;
    this.pending.delete(slot);
    this.gone.delete(pending.victim);
    this.live.set(pending.victim, slot);
    const counts = this.perSlot.get(slot);
    if (counts !== undefined) counts.deletions -= 1;
  }

  /** Whether `slot` waits for a Running replacement. */
  isWaiting(slot: string): boolean {
    return this.pending.has(slot);
  }

  /** The live pods (uid → slot) of slots not waiting, in the order they were first seen. */
  deletable(accept: (slot: string) => boolean = () => true): [string, string][] {
    return [...this.live].filter(([, slot]) => !this.pending.has(slot) && accept(slot));
  }

  /** The live pods of `slot` (more than one after a duplicate). */
  livePods(slot: string): number {
    return [...this.live.values()].filter((s) => s === slot).length;
  }

  counts(): SlotCounts {
    let deletions = 0;
    let replacements = 0;
    let duplicates = 0;
    for (const counts of this.perSlot.values()) {
      deletions += counts.deletions;
      replacements += counts.created;
      duplicates += Math.max(0, counts.created - counts.deletions);
    }
    return { heals: [...this.heals], deletions, replacements, duplicates, waiting: this.pending.size };
  }
}
