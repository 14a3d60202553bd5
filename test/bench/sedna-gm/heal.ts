/**
 * Self-heal runs against whatever controller reconciles a namespace: worker pods are
 * deleted (grace 0: gone from etcd at once) one at a time or at a steady rate, and a
 * {@link SlotTracker} fed by a Pod watch of the API server times each deletion to its
 * replacement's Running and counts the replacements. The same code measures edgeloop and
 * upstream Sedna's GlobalManager.
 */
import { waitFor, WaitTimeout } from "../../../cli/wait.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import type { BenchCluster } from "../cluster/stack.ts";
import { POD } from "../cluster/stack.ts";
import { SlotTracker, type SlotCounts } from "./slots.ts";

/** What one run measured. */
export interface HealRun extends SlotCounts {
  /** Deletions not sent on time because every live pod's slot was waiting for a replacement (rate runs). */
  readonly skipped: number;
  /** The rate the deletions were sent at (per second). */
  readonly achievedRate: number;
}

/** How a run picks and waits. */
export interface HealOptions {
  readonly namespace: string;
  /** Which slots may be deleted (`…/train/…`: training workers only). */
  readonly accept: (slot: string) => boolean;
  /** How long a replacement may take to be Running before it counts as not healed. */
  readonly healDeadlineMs?: number;
  /** Quiet time after the last heal in which a duplicate replacement would still be seen. */
  readonly settleMs?: number;
}

interface Watched {
  readonly tracker: SlotTracker;
  /** Pod uid → name (a delete call names the pod). */
  readonly names: Map<string, string>;
  stop(): void;
}

/** A tracker fed by the pod watch from now on, seeded with the namespace's pods. */
async function watched(cluster: BenchCluster, namespace: string): Promise<Watched> {
  const tracker = new SlotTracker();
  const names = new Map<string, string>();
  const see = (type: "ADDED" | "MODIFIED" | "DELETED", pod: KubeObject): void => {
    if (pod.metadata.namespace !== namespace) return;
    names.set(pod.metadata.uid ?? "", pod.metadata.name ?? "");
    tracker.observe(type, pod, performance.now());
  };
  const stop = cluster.watch(POD, (event) => see(event.type, event.object));
  for (const pod of (await cluster.list(POD, { namespace })).items) see("ADDED", pod);
  return { tracker, names, stop };
}

/** Deletes live pod `uid`, recorded in the tracker first (a failed call is undone). */
function remove(cluster: BenchCluster, w: Watched, namespace: string, uid: string): Promise<string | undefined> {
  const slot = w.tracker.deleted(uid, performance.now());
  if (slot === undefined) return Promise.resolve(undefined);
  return cluster.delete(POD, namespace, w.names.get(uid) ?? "", { gracePeriodSeconds: 0 }).then(
    () => slot,
    () => {
      w.tracker.undo(slot);
      return undefined;
    },
  );
}

/** Waits (up to the deadline) until no slot waits, then the settle time; a timeout is no error (the slots left are counted). */
async function settle(w: Watched, options: HealOptions): Promise<void> {
  await waitFor("every slot healed", () => w.tracker.counts().waiting, (left) => left === 0, { timeoutMs: options.healDeadlineMs ?? 60_000, intervalMs: 10 }).catch((error: unknown) => {
    if (!(error instanceof WaitTimeout)) throw error;
  });
  await new Promise((resolve) => setTimeout(resolve, options.settleMs ?? 3_000));
}

/** `deletions` deletions, each waiting for its replacement to be Running before the next. */
export async function healOneAtATime(cluster: BenchCluster, deletions: number, options: HealOptions): Promise<HealRun> {
  const w = await watched(cluster, options.namespace);
  const started = performance.now();
  try {
    for (let i = 0; i < deletions; i++) {
      const candidates = w.tracker.deletable(options.accept);
      const victim = candidates[i % Math.max(1, candidates.length)];
      if (victim === undefined) throw new Error(`no live pod to delete in ${options.namespace}`);
      const slot = await remove(cluster, w, options.namespace, victim[0]);
      if (slot === undefined) continue;
      await waitFor("the replacement Running", () => w.tracker.isWaiting(slot), (waiting) => !waiting, { timeoutMs: options.healDeadlineMs ?? 30_000, intervalMs: 2 }).catch((error: unknown) => {
        if (!(error instanceof WaitTimeout)) throw error;
      });
    }
    const achievedRate = (deletions * 1000) / Math.max(1, performance.now() - started);
    await settle(w, options);
    return { ...w.tracker.counts(), skipped: 0, achievedRate };
  } finally {
    w.stop();
  }
}

/** `count` deletions at `rate` per second, each of a pod whose slot is not waiting; then waits for every replacement. */
export async function healAtRate(cluster: BenchCluster, rate: number, count: number, options: HealOptions): Promise<HealRun> {
  const w = await watched(cluster, options.namespace);
  try {
    let skipped = 0;
    const calls: Promise<unknown>[] = [];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const wait = started + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // The oldest live pod first: the deletions go round the slots.
      const victim = w.tracker.deletable(options.accept)[0];
      if (victim === undefined) skipped += 1;
      else calls.push(remove(cluster, w, options.namespace, victim[0]));
    }
    const achievedRate = ((count - skipped) * 1000) / Math.max(1, performance.now() - started);
    await Promise.all(calls);
    await settle(w, options);
    return { ...w.tracker.counts(), skipped, achievedRate };
  } finally {
    w.stop();
  }
}
