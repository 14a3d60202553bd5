/**
 * Self-heal at a steady deletion rate: training pods are deleted at `rate` per second
 * (each one whose slot is not already waiting for its replacement), and the time from
 * each deletion to the creation of its slot's replacement is recorded.
 */
import { waitFor, WaitTimeout } from "../../cli/wait.ts";
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import type { SimCluster } from "../../sim/index.ts";

const POD: TypeRef = { apiVersion: "v1", kind: "Pod" };
const JOB_LABEL = "federatedlearningjob.sedna.io/name";
const TYPE_LABEL = "federatedlearningjob.sedna.io/worker-type";
const SLOT_LABEL = "edgeloop.dev/worker";

/** What one run at a rate measured. */
export interface RateRun {
  /** Deletion to replacement, ms, ascending. */
  readonly latencies: number[];
  /**
   * Of those, the heals whose job was already healing its other training pod when this
   * one was deleted (ascending): their reconcile waits for the other's whole plan (the
   * relay runs one reconcile per parent at a time), so they tell the queueing behind a
   * busy parent from the rest.
   */
  readonly behindOther: number[];
  /** The other heals: their job had no other heal in flight (ascending). */
  readonly alone: number[];
  /** Deletions sent. */
  readonly deleted: number;
  /** Deletions not sent on time because every live pod's slot was waiting for a replacement. */
  readonly skipped: number;
  /** Deletions whose replacement did not come within the deadline. */
  readonly unhealed: number;
  /** The rate the deletions were sent at (per second). */
  readonly achievedRate: number;
}

/** A training pod's slot (`job/worker`), or undefined for any other pod. */
function slotOf(pod: KubeObject): string | undefined {
  const labels = pod.metadata.labels ?? {};
  if (labels[TYPE_LABEL] !== "train") return undefined;
  return `${labels[JOB_LABEL] ?? ""}/${labels[SLOT_LABEL] ?? ""}`;
}

/** The job of a slot (`job/worker`). */
function jobOf(slot: string): string {
  return slot.slice(0, slot.lastIndexOf("/"));
}

/**
 * Deletes `count` training pods of `namespace` at `rate` per second, then waits (up to
 * `healDeadlineMs`) for every replacement. Victims go round the live pods, so the
 * deletions spread over the jobs.
 */
export async function selfHealAtRate(cluster: Pick<SimCluster, "watch" | "list" | "delete">, namespace: string, rate: number, count: number, healDeadlineMs = 60_000): Promise<RateRun> {
  const live = new Map<string, string>(); // pod name → slot
  const waiting = new Map<string, { readonly since: number; readonly behindOther: boolean }>(); // slot → when its pod was deleted, and whether its job was healing already
  const latencies: number[] = [];
  const behindOther: number[] = [];
  const alone: number[] = [];
  const stop = cluster.watch(POD, (event) => {
    const pod = event.object;
    const slot = slotOf(pod);
    const name = pod.metadata.name ?? "";
    if (slot === undefined || pod.metadata.namespace !== namespace) return;
    if (event.type === "DELETED" || pod.metadata.deletionTimestamp) {
      live.delete(name);
      return;
    }
    if (event.type === "ADDED") {
      const deleted = waiting.get(slot);
      if (deleted !== undefined) {
        const latency = performance.now() - deleted.since;
        latencies.push(latency);
        (deleted.behindOther ? behindOther : alone).push(latency);
        waiting.delete(slot);
      }
    }
    live.set(name, slot);
  });
  try {
    for (const pod of (await cluster.list(POD, { namespace, labelSelector: `${TYPE_LABEL}=train` })).items) {
      const slot = slotOf(pod);
      if (slot !== undefined && !pod.metadata.deletionTimestamp) live.set(pod.metadata.name ?? "", slot);
    }
    let skipped = 0;
    let deleted = 0;
    const deletions: Promise<unknown>[] = [];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const victim = [...live].find(([, slot]) => !waiting.has(slot));
      if (!victim) {
        skipped += 1;
        continue;
      }
      const [name, slot] = victim;
      // Rotated to the back: the next victim is another job's pod.
      live.delete(name);
      const job = jobOf(slot);
      waiting.set(slot, { since: performance.now(), behindOther: [...waiting.keys()].some((other) => jobOf(other) === job) });
      deleted += 1;
      deletions.push(cluster.delete(POD, namespace, name, { gracePeriodSeconds: 0 }).catch(() => waiting.delete(slot)));
    }
    const achievedRate = (deleted * 1000) / Math.max(1, performance.now() - started);
    await Promise.all(deletions);
    // Past the deadline the slots still waiting are reported as not healed.
    await waitFor("every slot healed (slots waiting)", () => waiting.size, (left) => left === 0, { timeoutMs: healDeadlineMs, intervalMs: 20 }).catch((error: unknown) => {
      if (!(error instanceof WaitTimeout)) throw error;
    });
    return { latencies: latencies.sort((a, b) => a - b), behindOther: behindOther.sort((a, b) => a - b), alone: alone.sort((a, b) => a - b), deleted, skipped, unhealed: waiting.size, achievedRate };
  } finally {
    stop();
  }
}

/**
 * Deletes `count` training pods of `namespace` one at a time, each once the last one's
 * replacement exists (victims go round the live pods); the time from each deletion to the
 * creation of its slot's replacement, ascending.
 */
export async function selfHealOneAtATime(cluster: Pick<SimCluster, "watch" | "list" | "delete">, namespace: string, count: number, replacementTimeoutMs = 10_000): Promise<number[]> {
  const latencies: number[] = [];
  let waiting: { readonly slot: string; readonly since: number } | undefined;
  const stop = cluster.watch(POD, (event) => {
    if (event.type === "ADDED" && waiting && event.object.metadata.namespace === namespace && slotOf(event.object) === waiting.slot) {
      latencies.push(performance.now() - waiting.since);
      waiting = undefined;
    }
  });
  try {
    for (let i = 0; i < count; i++) {
      const pods = (await cluster.list(POD, { namespace, labelSelector: `${TYPE_LABEL}=train` })).items.filter((pod) => !pod.metadata.deletionTimestamp);
      const victim = pods[i % pods.length];
      if (victim === undefined) throw new Error(`no training pod left in ${namespace}`);
      waiting = { slot: slotOf(victim) ?? "", since: performance.now() };
      await cluster.delete(POD, namespace, victim.metadata.name ?? "", { gracePeriodSeconds: 0 });
      await waitFor("the replacement", () => waiting, (pending) => pending === undefined, { timeoutMs: replacementTimeoutMs, intervalMs: 2 });
    }
  } finally {
    stop();
  }
  return latencies.sort((a, b) => a - b);
}
