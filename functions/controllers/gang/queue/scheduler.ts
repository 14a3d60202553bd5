/**
 * The gang scheduler's state machine over SQL (ADR 0012): it stores watch events, runs one
 * pass of the pure core per complete batch, records each allocation before returning the
 * binds, reports rejections once, cleans up finished groups, and fires deadline and
 * arrival timers. The Durable Object wraps it, passing `ctx.storage.sql` and arming its
 * alarm at `nextWake()`.
 */
import type { Action, Plan } from "../../../../protocol/plan.ts";
import type { EventBatch, WatchEvent } from "../../../../protocol/reconcile.ts";
import {
  DECLARING_API_VERSIONS,
  awaitsScheduling,
  buildView,
  gatherGroups,
  jobGroup,
  parseDeclaredGroup,
  heldNodeFailure,
  moveHolds,
  placeAgain,
  schedulePass,
  type Allocation,
  type ClusterView,
  type GroupRefusals,
  type HeldUnbound,
  type PassReport,
  type PendingGroup,
  type PodRecord,
  type WaitReason,
  UNKNOWN_TIME,
} from "../core/index.ts";
import { bind, deleteRoots, podEvent, unschedulable } from "./actions.ts";
import { coschedulingStatusActions, nativeStatusActions } from "./declared-status.ts";
import type { Sql } from "../../../kit/sql.ts";
import { GangStore, type GroupRow, type StoredPod, type TimerKind } from "./store.ts";
import { summarize, type GangSummary, type SummaryInput } from "./summary.ts";

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
  /**
   * The last pass over the current state, for inspection: what its rows are made of, read
   * when it ran, or the rows once a read has built them (absolute times). Undefined when
   * there is none (the object just started, a batch changed the state without a pass, a
   * timer changed it): the next read computes one (ADR 0012, "Inspection from the last pass").
   */
  #kept: { readonly input: SummaryInput | undefined; readonly rows: GangSummary[] | undefined } | undefined;
  /** The view the bind checks of one {@link due} share (built by the first that needs it, kept current by their moves). */
  #dueView: ClusterView | undefined;
  /** The last pass computed (by a batch or a read), for its summary. */
  #last: { readonly report: PassReport; readonly pods: readonly PodRecord[] } | undefined;

  constructor(sql: Sql, options: GangQueueOptions) {
    this.#store = new GangStore(sql, options.schedulerName);
    this.#options = options;
  }

  /**
   * Stores a batch of Pod and Node events, then, once a list is complete and unless this
   * batch is part of one still being sent, runs a scheduling pass and returns its plan.
   */
  apply(batch: EventBatch): Plan {
    this.#last = undefined;
    this.#kept = undefined;
    const result = this.#applyBatch(batch);
    // A pass leaves its rows; a batch without one (part of a list, an idle store) changed the
    // state all the same: no gang stored shows none, anything else is computed when read.
    this.#kept = this.#last !== undefined ? { input: this.#summaryInput(this.#last), rows: undefined } : this.#store.idle() ? { input: undefined, rows: [] } : undefined;
    return result;
  }

  /** {@link apply}'s work: store, then a pass when one is allowed. */
  #applyBatch(batch: EventBatch): Plan {
    const store = this.#store;
    const now = Date.parse(batch.now);
    if (batch.relist) store.beginList();
    for (const event of inOrderSeen(batch)) this.#store_(event, now);
    if (store.listing() && !batch.partialList) store.endList();
    if (batch.partialList || store.listing() || !store.listed()) return { actions: [] };
    const recorded = this.#recordMissing();
    // Scheduled Events change nothing a pass reads: a batch of them alone runs none.
    if (!batch.relist && batch.events.every((event) => event.kind.split(".")[0] === "Event")) return plan(recorded);
    // PodGroup statuses follow their pods (before a pass forgets a finished group's pods).
    const statuses = coschedulingStatusActions(store);
    // Other schedulers' pods only change what is free on their nodes: with no gang stored, a
    // pass (every stored pod loaded and parsed) would find nothing to do.
    if (store.idle()) return plan([...recorded, ...statuses]);
    // Lost binds first: a group released so waits in the queue again, and this pass may place it whole.
    return plan([...recorded, ...statuses, ...this.#mendLostBinds(now), ...this.#pass(now, batch.now), ...nativeStatusActions(store, batch.now)]);
  }

  /**
   * Binds the API server acknowledged and then lost (it came back from a restart without
   * them): pods of a started group the watch showed bound and now shows unbound (a bound
   * pod's `spec.nodeName` never goes away otherwise), and any pod of an allocation stored
   * unbound while its group has no bind check pending. Each gets a `BindLost` Warning, and
   * its group the bind check's treatment at once ({@link #rebind}): sent again to the nodes
   * its allocation holds while they still take them, else placed again, else released
   * (none of its pods bound) or let go (the pods that fit nowhere), so the queue never
   * shows a group running whole that is not.
   */
  #mendLostBinds(now: number): Action[] {
    const seen = this.#store.takeLostBinds();
    const unchecked = new Set(this.#store.groupsMaybeUnbound());
    const actions: Action[] = [];
    this.#dueView = undefined;
    for (const key of [...new Set([...seen.keys(), ...unchecked])].sort()) {
      const allocation = this.#store.allocation(key);
      const stored = new Map(this.#store.podsOf(key).map(({ record }) => [record.uid, record] as const));
      const lost = (allocation?.pods ?? []).flatMap((held) => {
        const pod = stored.get(held.uid);
        const unbound = pod !== undefined && pod.nodeName === undefined && !pod.terminal && !pod.deleting;
        return unbound && (unchecked.has(key) || seen.get(key)?.has(held.uid) === true) ? [{ held, pod, node: seen.get(key)?.get(held.uid) ?? held.node }] : [];
      });
      if (allocation === undefined || lost.length === 0) continue;
      const mended = this.#rebind(key, now);
      const sent = new Map(mended.flatMap((action) => (action.type === "bind" ? [[action.pod.uid, action.node] as const] : [])));
      const count = `${lost.length} of the group's ${allocation.pods.length} pods lost theirs`;
      for (const { pod, node } of lost) {
        const to = sent.get(pod.uid);
        const outcome = to === undefined ? "no node takes it now (see FailedScheduling)" : to === node ? `bind sent again to ${to}` : `bind sent again to ${to}, as ${node} no longer takes it`;
        actions.push(podEvent(pod, "Warning", "BindLost", `gang ${key}: pod ${pod.namespace}/${pod.name} was seen bound to ${node} but is unbound now (the API server lost its bind); ${count}; ${outcome}`));
      }
      actions.push(...mended);
    }
    this.#dueView = undefined;
    return actions;
  }

  /** Drops what the store keeps in memory of its tables (a transaction over them rolled back): read again next time. */
  forgetRows(): void {
    this.#store.forgetRows();
    this.#kept = undefined;
    this.#last = undefined;
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
    this.#dueView = undefined;
    for (const timer of this.#store.dueTimers(nowMs)) {
      this.#store.removeTimer(timer.id);
      pass ||= timer.kind === "window";
      actions.push(...this.#fire(timer.kind, timer.group, nowMs));
      // A deadline ends its group (its deadline and its unbound pods leave the rows); an
      // arrival warning or a bind sent again changes no row (a re-placement forgets them itself).
      if (timer.kind === "deadline") this.#kept = undefined;
    }
    this.#dueView = undefined;
    // A group's arrival window ended: what it held is free for the groups behind it. The pass leaves its rows.
    const store = this.#store;
    if (pass && store.listed() && !store.listing() && !store.idle()) {
      this.#last = undefined;
      const nowIso = new Date(nowMs).toISOString();
      actions.push(...this.#pass(nowMs, nowIso), ...nativeStatusActions(store, nowIso));
      if (this.#last !== undefined) this.#kept = { input: this.#summaryInput(this.#last), rows: undefined };
    }
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
      case "record":
        // Decided on the next complete batch: it carries what the relay's watch of Scheduled Events has seen by then
        // (a relay that was down relists first), where the alarm would decide on what it saw before it went down.
        this.#store.markRecordDue(group);
        return [];
    }
  }

  /**
   * The Scheduled Events the relay never recorded, recorded now: for each group whose
   * `record` check is due, a pod of its allocation seen bound whose Event the watch has
   * not shown (the relay was killed between a plan's binds and their Events, an Event
   * failed and its resends died with the relay, or the API server lost it) gets one,
   * saying so. Once per pod: it is then counted as recorded.
   */
  #recordMissing(): Action[] {
    const actions: Action[] = [];
    for (const key of this.#store.takeRecordDue()) {
      const allocation = this.#store.allocation(key);
      if (allocation === undefined || (this.#store.group(key)?.endedAt ?? null) !== null) continue;
      const stored = new Map(this.#store.podsOf(key).map(({ record }) => [record.uid, record] as const));
      const bound = allocation.pods.flatMap((held) => {
        const pod = stored.get(held.uid);
        return pod?.nodeName === undefined || pod.terminal ? [] : [pod];
      });
      const seen = this.#store.scheduledSeen(bound.map((pod) => pod.uid));
      for (const pod of bound) {
        if (seen.has(pod.uid)) continue;
        const message = `Successfully assigned ${pod.namespace}/${pod.name} to ${pod.nodeName ?? ""} (gang ${key}, ${allocation.pods.length} pods; recorded again: the first record of this bind was lost)`;
        actions.push(podEvent(pod, "Normal", "Scheduled", message));
        this.#store.markScheduled(pod.uid);
      }
    }
    return actions;
  }

  /**
   * One row per group for inspection, as of `nowMs`: the rows the last pass left (a pass
   * computed here, writing nothing, when there are none), with a reserved start already
   * past shown as `nowMs` (as a pass now would).
   */
  groups(nowMs: number): GangSummary[] {
    let kept = (this.#kept ??= { input: this.#readPass(nowMs), rows: undefined });
    // Built once; what they were built from (every pod record of the pass) is let go.
    if (kept.rows === undefined) kept = this.#kept = { input: undefined, rows: kept.input === undefined ? [] : summarize(kept.input) };
    return atTime(kept.rows ?? [], nowMs);
  }

  /** What the rows of a pass over the stored state at `nowMs` are made of (nothing is written). */
  #readPass(nowMs: number): SummaryInput | undefined {
    this.#last = undefined;
    this.#schedule(nowMs, schedulable(this.#load(), this.#store.declaredRefusals()), this.#store.allocations());
    return this.#last === undefined ? undefined : this.#summaryInput(this.#last);
  }

  /** A pass's rows' input: its report and pods, and the allocations and deadlines after it (a few rows, read now; the rows are built when read). */
  #summaryInput(last: { readonly report: PassReport; readonly pods: readonly PodRecord[] }): SummaryInput {
    return { report: last.report, pods: last.pods, allocations: this.#store.allocations(), deadlines: this.#store.timersOf("deadline"), sizes: this.#store.declaredSizes() };
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
      const job = jobGroup(event.object, this.#options.schedulerName);
      if (event.type === "DELETED" || job === undefined) this.#store.deleteAnnouncer(event.object.metadata.uid ?? "");
      else this.#store.putAnnouncer(job.uid, job.key, job.announcement, now);
    } else if (kind === "PodGroup") {
      const api = event.kind.endsWith(`.${DECLARING_API_VERSIONS.native}`) ? "native" : "scheduler-plugins";
      if (event.type === "DELETED") this.#store.deleteDeclaredGroup(api, event.object);
      else this.#store.putDeclaredGroup(api, event.object);
      // A PodGroup made before its pods gives the group its place in the queue (ADR 0025).
      const declared = parseDeclaredGroup(api, event.object);
      const uid = event.object.metadata.uid ?? "";
      if (event.type === "DELETED" || declared === undefined) this.#store.deleteAnnouncer(uid);
      else this.#store.putAnnouncer(uid, declared.key, undefined, now);
    } else if (kind === "Event") {
      // The relay's own Scheduled Events (the watch's field selector): the record of a bind.
      const uid = (event.object as { involvedObject?: { uid?: unknown } }).involvedObject?.uid;
      if (event.type !== "DELETED" && typeof uid === "string") this.#store.markScheduled(uid);
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
    const report = schedulePass({ now, nodes: this.#store.nodes(), pods, allocations, defaultDurationSeconds: duration, order: seq, firstSeen, announced: this.#store.announcements(), arrivalWindowMs, pinned: this.#store.holds(), sizes: this.#store.declaredSizes() });
    this.#last = { report, pods };
    return report;
  }

  /** Cleanup, then a pass, then its decisions stored and turned into actions. */
  #pass(now: number, nowIso: string): Action[] {
    const loaded = this.#cleanup(this.#load());
    const allocations = this.#store.allocations();
    const report = this.#schedule(now, schedulable(loaded, this.#store.declaredRefusals()), allocations);
    const queue = new Map(report.queue.map((group) => [group.key, group] as const));
    this.#keepHolds(report);
    const actions: Action[] = this.#refuse(loaded.pods, nowIso, now);
    for (const start of report.starts) {
      const group = queue.get(start.group);
      if (group === undefined) continue;
      // More pods of a group already running extend its allocation (its start and end stay).
      const running = this.#store.allocation(start.group);
      this.#store.putAllocation(running === undefined ? start.allocation : { ...running, pods: [...running.pods, ...start.allocation.pods] });
      this.#store.ensureGroup(start.group, now);
      this.#store.cancelTimers(start.group, "arrival");
      this.#store.cancelTimers(start.group, "window");
      this.#store.settleAnnouncers(start.group);
      if (running === undefined && start.allocation.endsAt !== undefined && group.pods.some((pod) => pod.deadlineSeconds !== undefined)) this.#store.setTimer("deadline", start.group, start.allocation.endsAt);
      this.#store.setTimer("bind", start.group, now + this.#bindCheckMs());
      actions.push(...binds(group, start.placed));
    }
    for (const { group: key, reason } of report.rejected) {
      this.#complete(key, loaded, now);
      this.#store.settleAnnouncers(key);
      const group = queue.get(key);
      if (group === undefined || loaded.groups.get(key)?.reported === reason.text) continue;
      const message = `gang ${key} (${group.pods.length} pods) ${reason.text}`;
      for (const pod of group.pods) actions.push(podEvent(pod, "Warning", "FailedScheduling", message), unschedulable(pod, message, nowIso));
      this.#store.setReported(key, reason.text);
    }
    // Why a group waits is not stored: the inspection keeps this pass's report in memory
    // (groups()), so a pass that changes nothing for a waiting group writes nothing for it.
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
   * Pods of ours waiting whose group size is refused — their `fluxnetes.group-size` label
   * (`core/group.ts`) or the count of the PodGroup they name (`core/declared.ts`): a
   * `FailedScheduling` Warning naming the field and `PodScheduled` False, once per text; a
   * refused PodGroup gets a Warning of its own, and a native one `PodGroupScheduled` False.
   * A pod fixed (labels are mutable), bound or gone is forgotten; fixed, it joins its group.
   */
  #refuse(pods: readonly StoredPod[], nowIso: string, now: number): Action[] {
    const reported = this.#store.refusedPods();
    const refusals = this.#store.declaredRefusals();
    const actions: Action[] = [];
    const still = new Set<string>();
    for (const { record } of pods) {
      const reason = record.group.sizeRefused ?? refusals(record.group);
      if (reason === undefined || !awaitsScheduling(record)) continue;
      still.add(record.uid);
      if (reported.get(record.uid) === reason) continue;
      const message = `pod ${record.namespace}/${record.name} refused: ${reason}`;
      actions.push(podEvent(record, "Warning", "FailedScheduling", message), unschedulable(record, message, nowIso));
      this.#store.setRefused(record.uid, reason);
    }
    for (const stored of this.#store.declaredGroups()) {
      const { record } = stored;
      if (record.sizeRefused === undefined || stored.uid === "" || !pods.some(({ record: pod }) => still.has(pod.uid) && pod.group.key === record.key)) continue;
      still.add(stored.uid);
      if (reported.get(stored.uid) === record.sizeRefused) continue;
      const target = { apiVersion: DECLARING_API_VERSIONS[record.api], kind: "PodGroup", namespace: record.namespace, name: record.name, uid: stored.uid };
      actions.push({ type: "event", target, eventType: "Warning", reason: "FailedScheduling", message: `PodGroup ${record.key} refused: ${record.sizeRefused}; its pods are not scheduled` });
      this.#store.setRefused(stored.uid, record.sizeRefused);
      // A native PodGroup says so in its PodGroupScheduled condition (nativeStatusActions writes the reported text).
      if (record.api === "native") {
        this.#store.ensureGroup(record.key, now);
        this.#store.setReported(record.key, `refused: ${record.sizeRefused}`);
      }
    }
    for (const uid of reported.keys()) if (!still.has(uid)) this.#store.forgetRefused(uid);
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
   * not apply, or one it applied whose pod the watch has not shown yet) are bound again,
   * each to the node it was given while that node exists and still fits it (the pass's
   * rules: Ready, not cordoned, taints, selectors, affinity, room); the pods it no longer
   * fits are placed again, together, on the current view, the bound pods staying where
   * they are. A bind of a pod already bound is a no-op at the relay. The check repeats
   * until every pod is seen bound, finished or gone. When the pods that lost their node
   * fit nowhere now, "all pods of a group or none" decides: a group none of whose pods is
   * bound gives its allocation back and waits in the queue again, whole ({@link #requeue});
   * a group already partly bound keeps its bound pods, and the pods that fit nowhere leave
   * its allocation and wait as its later pods do, extending it when room comes
   * ({@link #letGo}). Either way with a `FailedScheduling` Warning on those pods.
   */
  #rebind(key: string, now: number): Action[] {
    const allocation = this.#store.allocation(key);
    if (allocation === undefined || (this.#store.group(key)?.endedAt ?? null) !== null) return [];
    const stored = new Map(this.#store.podsOf(key).map(({ record }) => [record.uid, record] as const));
    const unbound: HeldUnbound[] = [];
    // No pod of the allocation is bound, nor unseen (a pod the watch has not shown may be bound).
    let noneBound = true;
    for (const held of allocation.pods) {
      const pod = stored.get(held.uid);
      if (pod === undefined || pod.nodeName !== undefined) noneBound = false;
      if (pod === undefined || pod.nodeName !== undefined || pod.terminal || pod.deleting) continue;
      unbound.push({ held, pod });
    }
    if (unbound.length === 0) {
      // Every pod seen bound: a check period on, whether each bind's Scheduled Event was recorded.
      this.#store.setTimer("record", key, now + this.#bindCheckMs());
      return [];
    }
    const view = (this.#dueView ??= buildView(this.#store.nodes(), this.#store.pods().map(({ record }) => record), this.#store.allocations()));
    const lost = new Map(unbound.flatMap((pod) => [heldNodeFailure(view, pod)].flatMap((why) => (why === undefined ? [] : [[pod.held.uid, why] as const]))));
    if (lost.size === 0) return this.#sendAgain(allocation, unbound, new Map(), lost, now);
    const misfits = unbound.filter(({ held }) => lost.has(held.uid));
    // The pods that lost their node first; a group none of whose pods is bound may move whole.
    let waits: WaitReason | undefined;
    for (const pods of noneBound && misfits.length < unbound.length ? [misfits, unbound] : [misfits]) {
      const outcome = placeAgain(view, key, pods);
      if ("waits" in outcome) {
        waits ??= outcome.waits;
        continue;
      }
      moveHolds(view, pods, outcome.placed);
      return this.#sendAgain(allocation, unbound, outcome.placed, lost, now);
    }
    const why = `${[...lost.values()][0] ?? ""}${lost.size > 1 ? ` (and ${lost.size - 1} more)` : ""}; no node takes ${misfits.length === 1 ? "it" : `its ${misfits.length} pods`} now: ${waits?.text ?? "no room"}`;
    return noneBound ? this.#requeue(view, allocation, unbound, why) : this.#letGo(view, allocation, unbound, misfits, why, now);
  }

  /** Binds `unbound` again, each to its node in `placed` if moved (the allocation records it), else to the one it holds. */
  #sendAgain(allocation: Allocation, unbound: readonly HeldUnbound[], placed: ReadonlyMap<string, string>, lost: ReadonlyMap<string, string>, now: number): Action[] {
    const key = allocation.group;
    if (placed.size > 0) {
      this.#store.putAllocation({ ...allocation, pods: allocation.pods.map((held) => ({ ...held, node: placed.get(held.uid) ?? held.node })) });
      this.#kept = undefined;
    }
    const actions: Action[] = [];
    for (const { held, pod } of unbound) {
      const node = placed.get(held.uid) ?? held.node;
      const how = node === held.node ? "bind sent again" : `bind sent again, moved from ${held.node}: ${lost.get(held.uid) ?? "placed again with its group"}`;
      actions.push(bind(pod, node), podEvent(pod, "Normal", "Scheduled", `Successfully assigned ${pod.namespace}/${pod.name} to ${node} (gang ${key}, ${how})`, true));
    }
    this.#store.setTimer("bind", key, now + this.#bindCheckMs());
    return actions;
  }

  /** No pod of the group is bound and they fit nowhere now: the allocation is released and the group waits in the queue again, whole. */
  #requeue(view: ClusterView, allocation: Allocation, unbound: readonly HeldUnbound[], why: string): Action[] {
    const key = allocation.group;
    moveHolds(view, unbound, new Map());
    this.#store.deleteAllocation(key);
    this.#store.cancelTimers(key, "bind");
    this.#store.cancelTimers(key, "deadline");
    this.#kept = undefined;
    const message = `gang ${key}: ${why}; none of its pods is bound, so its allocation is released and the group waits in the queue again`;
    return unbound.map(({ pod }) => podEvent(pod, "Warning", "FailedScheduling", message));
  }

  /**
   * The group is partly bound and `misfits` fit nowhere now: they leave the allocation (a
   * pass queues them as the group's later pods, extending it when room comes); the other
   * unbound pods are bound again where they are.
   */
  #letGo(view: ClusterView, allocation: Allocation, unbound: readonly HeldUnbound[], misfits: readonly HeldUnbound[], why: string, now: number): Action[] {
    const gone = new Set(misfits.map(({ held }) => held.uid));
    moveHolds(view, misfits, new Map());
    const kept = { ...allocation, pods: allocation.pods.filter((held) => !gone.has(held.uid)) };
    this.#store.putAllocation(kept);
    this.#kept = undefined;
    const message = `gang ${allocation.group}: ${why}; the group's bound pods keep running and this pod waits in the queue for room`;
    const stay = unbound.filter(({ held }) => !gone.has(held.uid));
    const actions = misfits.map(({ pod }) => podEvent(pod, "Warning", "FailedScheduling", message));
    return stay.length === 0 ? actions : [...actions, ...this.#sendAgain(kept, stay, new Map(), new Map(), now)];
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

/**
 * The pods a pass reads: all stored, but not the unbound pods of a group ended by its
 * deadline (they are being deleted), nor those waiting whose PodGroup's count is refused.
 */
function schedulable(loaded: Loaded, refusals: GroupRefusals): PodRecord[] {
  return loaded.pods
    .map(({ record }) => record)
    .filter((pod) => {
      if (pod.ours && pod.nodeName === undefined && refusals(pod.group) !== undefined) return false;
      const ended = pod.ours ? (loaded.groups.get(pod.group.key)?.endedAt ?? null) : null;
      return ended === null || pod.createdAt > ended || pod.nodeName !== undefined;
    });
}

/** The rows as seen at `nowMs`: a reserved start already past is now (the backfill reserves at `max(end, now)`). */
function atTime(rows: readonly GangSummary[], nowMs: number): GangSummary[] {
  const now = new Date(nowMs).toISOString();
  return rows.map((row) => (row.reservedStart !== null && Date.parse(row.reservedStart) < nowMs ? { ...row, reservedStart: now } : row));
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
