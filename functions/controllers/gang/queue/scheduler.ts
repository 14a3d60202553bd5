/**
 * The gang scheduler's state machine over SQL (ADR 0012): it stores watch events, runs one
 * pass of the pure core per complete batch, records each allocation before returning the
 * binds, reports rejections once, cleans up finished groups, and fires deadline and
 * arrival timers. The Durable Object wraps it, passing `ctx.storage.sql` and arming its
 * alarm at `nextWake()`.
 */
import type { Action, Plan } from "../../../../protocol/plan.ts";
import type { EventBatch, WatchEvent } from "../../../../protocol/reconcile.ts";
import { DECLARING_API_VERSIONS, awaitsScheduling, gatherGroups, jobGroup, schedulePass, UNKNOWN_TIME, type PassReport, type PendingGroup, type PodRecord } from "../core/index.ts";
import { bind, deleteRoots, podEvent, unschedulable } from "./actions.ts";
import { coschedulingStatusActions, nativeStatusActions } from "./declared-status.ts";
import type { Sql } from "./sql.ts";
import { GangStore, type GroupRow, type StoredPod, type TimerKind } from "./store.ts";
import { summarize, type GangSummary } from "./summary.ts";

/** How the scheduler is tuned. */
export interface GangQueueOptions {
  /** The expected run time of a group whose pods declare no `activeDeadlineSeconds`, for backfill only (it never ends a group); 0 or less: unknown. */
  readonly defaultDurationSeconds: number;
  /** After how long a group still short of pods gets a `GangIncomplete` warning; 0 or less: never. */
  readonly arrivalTimeoutSeconds: number;
  /** After how long the binds of a started group are sent again for its pods not yet seen bound (default 10). */
  readonly bindCheckSeconds?: number;
  /** How long a group still arriving holds its place in the queue, from the first sign of it (ADR 0025); 0 or less: it does not. */
  readonly arrivalWindowSeconds?: number;
  /** The `spec.schedulerName` of the pods placed (default `fluxnetes`). */
  readonly schedulerName?: string;
}

/** How many binds (each with its Event) the relay applies at once from one plan. */
export const BIND_CONCURRENCY = 32;

/** What a pass reads, loaded from the tables. */
interface Loaded {
  readonly pods: StoredPod[];
  readonly groups: Map<string, GroupRow>;
  /** The groups with an arrival timer set. */
  readonly arrivals: ReadonlySet<string>;
}

/** The gang scheduler's logic over its SQL state. Not re-entrant: the object's input gate serialises calls. */
export class GangQueueLogic {
  readonly #store: GangStore;
  readonly #options: GangQueueOptions;

  constructor(sql: Sql, options: GangQueueOptions) {
    this.#store = new GangStore(sql, options.schedulerName);
    this.#options = options;
  }

  /**
   * Stores a batch of Pod and Node events, then, once a list is complete and unless this
   * batch is part of one still being sent, runs a scheduling pass and returns its plan.
   */
  apply(batch: EventBatch): Plan {
    const store = this.#store;
    const now = Date.parse(batch.now);
    if (batch.relist) store.beginList();
    for (const event of inOrderSeen(batch)) this.#store_(event, now);
    if (store.listing() && !batch.partialList) store.endList();
    if (batch.partialList || store.listing() || !store.listed()) return { actions: [] };
    // Other schedulers' pods only change what is free on their nodes: with no gang stored, a
    // pass (every stored pod loaded and parsed) would find nothing to do.
    // PodGroup statuses follow their pods (before a pass forgets a finished group's pods).
    const statuses = coschedulingStatusActions(store);
    if (store.idle()) return plan(statuses);
    return plan([...statuses, ...this.#pass(now, batch.now), ...nativeStatusActions(store, batch.now)]);
  }

  /** The earliest time a timer is due (ms since the epoch), if any. */
  nextWake(): number | undefined {
    return this.#store.nextWake();
  }

  /**
   * Fires every timer due at `nowMs`: deadlines delete their group's root owners, arrival
   * timeouts warn once, bind checks send again the binds of pods not yet seen bound.
   */
  due(nowMs: number): Plan {
    const actions: Action[] = [];
    let pass = false;
    for (const timer of this.#store.dueTimers(nowMs)) {
      this.#store.removeTimer(timer.id);
      pass ||= timer.kind === "window";
      actions.push(...this.#fire(timer.kind, timer.group, nowMs));
    }
    // A group's arrival window ended: what it held is free for the groups behind it.
    const store = this.#store;
    if (pass && store.listed() && !store.listing() && !store.idle()) actions.push(...this.#pass(nowMs, new Date(nowMs).toISOString()));
    return plan(actions);
  }

  /** One timer's actions. */
  #fire(kind: TimerKind, group: string, nowMs: number): Action[] {
    switch (kind) {
      case "window":
        return [];
      case "deadline":
        return this.#deadline(group, nowMs);
      case "arrival":
        return this.#arrival(group, nowMs);
      case "bind":
        return this.#rebind(group, nowMs);
    }
  }

  /** One row per group for inspection, from a pass over the stored state at `nowMs` (nothing is written). */
  groups(nowMs: number): GangSummary[] {
    const loaded = this.#load();
    const pods = schedulable(loaded);
    const allocations = this.#store.allocations();
    const report = this.#schedule(nowMs, pods, allocations);
    const deadlines = new Map<string, number>();
    for (const allocation of allocations) {
      const due = this.#store.timer("deadline", allocation.group);
      if (due !== undefined) deadlines.set(allocation.group, due);
    }
    return summarize({ report, allocations, pods, deadlines, sizes: this.#store.declaredSizes() });
  }

  /** Stores one watch event; a group or Job first seen is numbered (the queue order). */
  #store_(event: WatchEvent, now: number): void {
    const kind = event.kind.split(".")[0];
    if (kind === "Pod") {
      if (event.type === "DELETED") this.#store.deletePod(event.object.metadata.uid ?? "");
      else {
        const record = this.#store.putPod(event.object);
        if (record?.ours === true) this.#store.orderGroup(record.group.key, now);
      }
    } else if (kind === "Job") {
      const job = jobGroup(event.object);
      if (event.type === "DELETED" || job === undefined) this.#store.deleteJob(event.object.metadata.uid ?? "");
      else this.#store.putJob(job.uid, job.key, job.announcement, now);
    } else if (kind === "PodGroup") {
      const api = event.kind.endsWith(`.${DECLARING_API_VERSIONS.native}`) ? "native" : "scheduler-plugins";
      if (event.type === "DELETED") this.#store.deleteDeclaredGroup(api, event.object);
      else this.#store.putDeclaredGroup(api, event.object);
    } else if (kind === "Node") {
      if (event.type === "DELETED") this.#store.deleteNode(event.object.metadata.name ?? "");
      else this.#store.putNode(event.object);
    }
  }

  /** The stored pods and group rows. */
  #load(): Loaded {
    return { pods: this.#store.pods(), groups: new Map(this.#store.groupRows().map((row) => [row.key, row] as const)), arrivals: this.#store.timerGroups("arrival") };
  }

  /** The core pass. */
  #schedule(now: number, pods: readonly PodRecord[], allocations: ReturnType<GangStore["allocations"]>): PassReport {
    const duration = this.#options.defaultDurationSeconds > 0 ? this.#options.defaultDurationSeconds : undefined;
    const { seq, firstSeen } = this.#store.order();
    const arrivalWindowMs = Math.max(0, this.#options.arrivalWindowSeconds ?? 0) * 1000;
    return schedulePass({ now, nodes: this.#store.nodes(), pods, allocations, defaultDurationSeconds: duration, order: seq, firstSeen, announced: this.#store.announcements(), arrivalWindowMs, pinned: this.#store.holds(), sizes: this.#store.declaredSizes() });
  }

  /** Cleanup, then a pass, then its decisions stored and turned into actions. */
  #pass(now: number, nowIso: string): Action[] {
    const loaded = this.#cleanup(this.#load());
    const allocations = this.#store.allocations();
    const report = this.#schedule(now, schedulable(loaded), allocations);
    const queue = new Map(report.queue.map((group) => [group.key, group] as const));
    this.#keepHolds(report);
    const actions: Action[] = [];
    for (const start of report.starts) {
      const group = queue.get(start.group);
      if (group === undefined) continue;
      // More pods of a group already running extend its allocation (its start and end stay).
      const running = this.#store.allocation(start.group);
      this.#store.putAllocation(running === undefined ? start.allocation : { ...running, pods: [...running.pods, ...start.allocation.pods] });
      this.#store.ensureGroup(start.group, now);
      this.#store.cancelTimers(start.group, "arrival");
      this.#store.cancelTimers(start.group, "window");
      this.#store.settleJobs(start.group);
      if (running === undefined && start.allocation.endsAt !== undefined && group.pods.some((pod) => pod.deadlineSeconds !== undefined)) this.#store.setTimer("deadline", start.group, start.allocation.endsAt);
      this.#store.setTimer("bind", start.group, now + this.#bindCheckMs());
      actions.push(...binds(group, start.placed));
    }
    for (const { group: key, reason } of report.rejected) {
      this.#complete(key, loaded, now);
      this.#store.settleJobs(key);
      const group = queue.get(key);
      if (group === undefined || loaded.groups.get(key)?.reported === reason.text) continue;
      const message = `gang ${key} (${group.pods.length} pods) ${reason.text}`;
      for (const pod of group.pods) actions.push(podEvent(pod, "Warning", "FailedScheduling", message), unschedulable(pod, message, nowIso));
      this.#store.setReported(key, reason.text);
    }
    // Why a group waits is not stored: the inspection recomputes it (groups()), so a pass
    // that changes nothing for a waiting group writes nothing for it.
    for (const { group: key } of [...report.waiting, ...(report.reservation === undefined ? [] : [report.reservation])]) if (queue.has(key)) this.#complete(key, loaded, now);
    const timeout = this.#options.arrivalTimeoutSeconds;
    const timeouts = this.#store.scheduleTimeouts();
    for (const group of report.provisional) {
      const seconds = timeouts.get(group.key) ?? timeout;
      if (!loaded.groups.has(group.key) && this.#store.ensureGroup(group.key, now) && seconds > 0) this.#store.setTimer("arrival", group.key, now + seconds * 1000);
    }
    return actions;
  }

  /**
   * What the groups still arriving hold is kept (the room they took in this pass, where
   * they go when complete), and each gets a timer at the end of its window: then a pass
   * gives what it held to the groups behind it.
   */
  #keepHolds(report: PassReport): void {
    const held = new Map(report.holds.map((hold) => [hold.group, hold.nodes] as const));
    for (const key of this.#store.holds().keys()) if (!held.has(key)) this.#store.deleteHold(key);
    for (const [key, nodes] of held) this.#store.putHold(key, nodes);
    for (const group of report.holding) if (this.#store.timer("window", group.key) === undefined) this.#store.setTimer("window", group.key, group.until);
  }

  /** A complete group has its row, and no arrival timer any more (written only when that changes). */
  #complete(key: string, loaded: Loaded, now: number): void {
    if (loaded.groups.has(key) && !loaded.arrivals.has(key)) return;
    this.#store.ensureGroup(key, now);
    this.#store.cancelTimers(key, "arrival");
  }

  /**
   * Removes every group whose pods are all gone or finished: its allocation (resources
   * released), its row, its timers and its finished pods' rows. A group ended by its
   * deadline loses its row once the pods it had then are gone.
   */
  #cleanup(loaded: Loaded): Loaded {
    const live = new Map<string, number>();
    const finished = new Map<string, string[]>();
    for (const { record } of loaded.pods) {
      if (!record.ours) continue;
      const ended = loaded.groups.get(record.group.key)?.endedAt ?? null;
      if (ended !== null && record.createdAt > ended) continue;
      if (record.terminal) finished.set(record.group.key, [...(finished.get(record.group.key) ?? []), record.uid]);
      else live.set(record.group.key, (live.get(record.group.key) ?? 0) + 1);
    }
    const keys = new Set([...loaded.groups.keys(), ...this.#store.allocations().map((a) => a.group), ...this.#store.orderedGroups()]);
    const gone = new Set<string>();
    for (const key of keys) {
      if ((live.get(key) ?? 0) > 0) continue;
      gone.add(key);
      this.#store.deleteAllocation(key);
      this.#store.deleteGroup(key);
      this.#store.cancelTimers(key);
      this.#store.deleteTerminalPodsOf(key, finished.get(key) ?? []);
      this.#store.forgetOrder(key);
    }
    if (gone.size === 0) return loaded;
    const groups = new Map([...loaded.groups].filter(([key]) => !gone.has(key)));
    const pods = loaded.pods.filter(({ record }) => !(record.terminal && record.ours && gone.has(record.group.key)));
    return { pods, groups, arrivals: loaded.arrivals };
  }

  /** A deadline: delete the group's root owners, warn its pods and mark the group ended. */
  #deadline(key: string, now: number): Action[] {
    const allocation = this.#store.allocation(key);
    if (allocation === undefined) return [];
    const present = this.#store.podsOf(key).filter(({ record }) => !record.terminal);
    const seconds = allocation.endsAt === undefined ? 0 : Math.round((allocation.endsAt - allocation.startedAt) / 1000);
    const roots = deleteRoots(present);
    const what = roots.map((action) => (action.type === "delete" ? `${action.target.kind} ${action.target.name}` : "")).join(", ");
    const message = `gang ${key} reached its deadline of ${seconds}s (started ${new Date(allocation.startedAt).toISOString()}); deleting ${what}`;
    const actions: Action[] = [...roots, ...present.map(({ record }) => podEvent(record, "Warning", "DeadlineExceeded", message))];
    // The allocation stays until the pods are gone (cleanup): its end, now past, tells the
    // reservation that their room is coming free, and nothing is double-booked meanwhile.
    this.#store.cancelTimers(key);
    this.#store.setEnded(key, now);
    return actions;
  }

  /** How long before a started group's binds are checked. */
  #bindCheckMs(): number {
    return (this.#options.bindCheckSeconds ?? 10) * 1000;
  }

  /**
   * A bind check: the pods of a running allocation still unbound (a bind the relay could
   * not apply, or one it applied whose pod the watch has not shown yet) are bound again to
   * the nodes they were given; a bind of a pod already bound is a no-op at the relay. The
   * check repeats until every pod is seen bound, finished or gone.
   */
  #rebind(key: string, now: number): Action[] {
    const allocation = this.#store.allocation(key);
    if (allocation === undefined || (this.#store.group(key)?.endedAt ?? null) !== null) return [];
    const stored = new Map(this.#store.podsOf(key).map(({ record }) => [record.uid, record] as const));
    const actions: Action[] = [];
    for (const held of allocation.pods) {
      const pod = stored.get(held.uid);
      if (pod === undefined || pod.nodeName !== undefined || pod.terminal || pod.deleting) continue;
      actions.push(bind(pod, held.node), podEvent(pod, "Normal", "Scheduled", `Successfully assigned ${pod.namespace}/${pod.name} to ${held.node} (gang ${key}, bind sent again)`, true));
    }
    if (actions.length > 0) this.#store.setTimer("bind", key, now + this.#bindCheckMs());
    return actions;
  }

  /** An arrival timeout: a group still short of pods warns its present pods, once. */
  #arrival(key: string, now: number): Action[] {
    const row = this.#store.group(key);
    if (row === undefined || row.warnedMissing || row.endedAt !== null || this.#store.allocation(key) !== undefined) return [];
    const pods = this.#store.podsOf(key).map(({ record }) => record);
    const group = gatherGroups(pods, { sizes: this.#store.declaredSizes() }).provisional.find((g) => g.key === key);
    if (group === undefined) return [];
    const seconds = Math.round((now - row.firstSeen) / 1000);
    const message = group.undeclared === true ? `${group.have} pods of group ${key} waited ${seconds}s for the PodGroup they name, which does not exist` : `${group.have} of ${group.size} pods of group ${key} arrived after ${seconds}s; waiting for ${group.size - group.have} more`;
    this.#store.setWarnedMissing(key);
    return pods.filter(awaitsScheduling).map((pod) => podEvent(pod, "Warning", "GangIncomplete", message));
  }
}

/**
 * A batch's events in the order their groups and Jobs are numbered: as delivered (a watch
 * delivers them in the order they were written), except that a list's objects, which come
 * in name order, are numbered by creation time first (ADR 0025).
 */
function inOrderSeen(batch: EventBatch): readonly WatchEvent[] {
  if (!batch.relist && !batch.events.some((event) => event.initial)) return batch.events;
  const created = (event: WatchEvent): number => {
    const at = Date.parse(event.object.metadata.creationTimestamp ?? "");
    return Number.isFinite(at) ? at : UNKNOWN_TIME;
  };
  return batch.events.map((event, index) => ({ event, index, at: created(event) })).sort((a, b) => a.at - b.at || a.index - b.index).map(({ event }) => event);
}

/** The pods a pass reads: all stored, but not the unbound pods of a group ended by its deadline (they are being deleted). */
function schedulable(loaded: Loaded): PodRecord[] {
  return loaded.pods
    .map(({ record }) => record)
    .filter((pod) => {
      const ended = pod.ours ? (loaded.groups.get(pod.group.key)?.endedAt ?? null) : null;
      return ended === null || pod.createdAt > ended || pod.nodeName !== undefined;
    });
}

/** A plan of `actions`, whose binds the relay may apply {@link BIND_CONCURRENCY} at a time. */
function plan(actions: Action[]): Plan {
  return actions.some((action) => action.type === "bind") ? { actions, concurrency: BIND_CONCURRENCY } : { actions };
}

/** A bind and a `Scheduled` Event (recorded only if the bind was applied) per pod of a started group. */
function binds(group: PendingGroup, placed: ReadonlyMap<string, string>): Action[] {
  const actions: Action[] = [];
  for (const pod of group.pods) {
    const node = placed.get(pod.uid);
    if (node === undefined) continue;
    const message = `Successfully assigned ${pod.namespace}/${pod.name} to ${node} (gang ${group.key}, ${placed.size} pods)`;
    actions.push(bind(pod, node), podEvent(pod, "Normal", "Scheduled", message, true));
  }
  return actions;
}
