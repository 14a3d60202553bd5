/**
 * The gang scheduler's tables and every statement over them. Pods and nodes are keyed by
 * uid and name (a pod seen twice is one row; a replayed list rewrites the same rows) and
 * carry the list generation that last saw them, so the end of a relist removes what it
 * did not list. Allocations, groups and timers are the scheduler's own decisions and
 * survive relists.
 */
import { ownerToFollow } from "../../../../protocol/kube/owner.ts";
import { declaredRefusals, declaredSizes, parseDeclaredGroup, parseNode, parsePod, type Allocation, type Announcement, type DeclaredGroup, type DeclaringApi, type GroupRefusals, type GroupSizes, type NodeRecord, type PodRecord } from "../core/index.ts";
import type { Sql } from "../../../kit/sql.ts";

/** The controller owner of a pod (else its first owner), kept to delete the group's root at its deadline. */
export interface OwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string | undefined;
}

/** A stored pod: its record and its owner. */
export interface StoredPod {
  readonly record: PodRecord;
  readonly owner: OwnerRef | undefined;
}

/** A row of `groups`. */
export interface GroupRow {
  readonly key: string;
  /** When a pass first saw the group, ms since the epoch. */
  readonly firstSeen: number;
  /** The arrival warning was given. */
  readonly warnedMissing: boolean;
  /** The rejection text already reported on the pods (Event and PodScheduled). */
  readonly reported: string | null;
  /** When its deadline fired: its pods created up to then are being deleted and never scheduled again. */
  readonly endedAt: number | null;
}

/**
 * A timer kind: the end of a group's declared duration, the arrival timeout of a
 * provisional group, a check that a started group's pods were seen bound (a bind the
 * relay could not apply is sent again), the end of the window in which a group still
 * arriving holds its place (then a pass runs), or, a check period after every pod was
 * seen bound, the check that each bind's Scheduled Event was recorded (`record`).
 */
export type TimerKind = "deadline" | "arrival" | "bind" | "window" | "record";

/** A stored timer kind, as a `TimerKind`. */
function timerKind(kind: string): TimerKind {
  return kind === "deadline" || kind === "bind" || kind === "window" || kind === "record" ? kind : "arrival";
}

/** A due timer. */
export interface TimerRow {
  readonly id: string;
  readonly due: number;
  readonly kind: TimerKind;
  readonly group: string;
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS pods (uid TEXT PRIMARY KEY, namespace TEXT NOT NULL, name TEXT NOT NULL, group_key TEXT, record TEXT NOT NULL, ours INTEGER NOT NULL, bound_node TEXT, owner TEXT, gen INTEGER NOT NULL) WITHOUT ROWID",
  // Only the gang's own pods (group_key is set for ours alone): another pod's row costs no index row
  // written, and "is any pod ours" reads one row, not every pod of the cluster (rows read are billed).
  "DROP INDEX IF EXISTS pods_group",
  "CREATE INDEX IF NOT EXISTS pods_gang ON pods (group_key) WHERE group_key IS NOT NULL",
  "CREATE TABLE IF NOT EXISTS nodes (name TEXT PRIMARY KEY, record TEXT NOT NULL, gen INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS allocations (group_key TEXT PRIMARY KEY, allocation TEXT NOT NULL, started_at INTEGER NOT NULL, ends_at INTEGER) WITHOUT ROWID",
  // rejected_reason and waiting are written no more (the inspection recomputes them); kept so an existing object's table needs no migration.
  "CREATE TABLE IF NOT EXISTS groups (group_key TEXT PRIMARY KEY, first_seen INTEGER NOT NULL, warned_missing INTEGER NOT NULL DEFAULT 0, rejected_reason TEXT, reported TEXT, waiting TEXT, ended_at INTEGER) WITHOUT ROWID",
  // Not `timers`: durable/timers.ts owns a table of that name with another shape, and the object may use both.
  "CREATE TABLE IF NOT EXISTS gang_timers (id TEXT PRIMARY KEY, due INTEGER NOT NULL, kind TEXT NOT NULL, group_key TEXT NOT NULL) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS gang_timers_due ON gang_timers (due)",
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
  // The queue order (ADR 0025): the counter value a group or a Job was first seen at. Kept across relists and restarts.
  "CREATE TABLE IF NOT EXISTS gang_order (group_key TEXT PRIMARY KEY, seq INTEGER NOT NULL, first_seen INTEGER NOT NULL) WITHOUT ROWID",
  // Objects that announce a group of ours before (or while) its pods arrive: Jobs whose pod template names it
  // (with the template as `announcement`), PodGroups of either API (numbering the group only).
  // `done`: its group has started (or was rejected) since; the Job announces nothing more.
  "CREATE TABLE IF NOT EXISTS gang_announcers (uid TEXT PRIMARY KEY, group_key TEXT NOT NULL, seq INTEGER NOT NULL, first_seen INTEGER NOT NULL, announcement TEXT, done INTEGER NOT NULL DEFAULT 0, gen INTEGER NOT NULL) WITHOUT ROWID",
  // The nodes a group still arriving holds (one per pod, match order): where it goes when complete.
  "CREATE TABLE IF NOT EXISTS gang_holds (group_key TEXT PRIMARY KEY, nodes TEXT NOT NULL) WITHOUT ROWID",
  // PodGroup objects (scheduler-plugins' and native) that declare groups (ADR 0026): their record, what
  // of their status is written back (observed, and last sent), the list generation that saw them.
  // Pods of ours the watch showed bound and then unbound: a bind the API server acknowledged and lost (a bound
  // pod's spec.nodeName never goes away otherwise), until the next pass mends its group. `node`: where it was bound.
  "CREATE TABLE IF NOT EXISTS gang_lost_binds (uid TEXT PRIMARY KEY, group_key TEXT NOT NULL, node TEXT NOT NULL) WITHOUT ROWID",
  // Pods of ours refused (their size label is not a size), with the refusal reported on them: reported once per text.
  "CREATE TABLE IF NOT EXISTS gang_refused_pods (uid TEXT PRIMARY KEY, reason TEXT NOT NULL) WITHOUT ROWID",
  // Pods of ours whose Scheduled Event the watch of the relay's Scheduled Events has shown (or that the queue recorded again).
  "CREATE TABLE IF NOT EXISTS gang_scheduled_seen (uid TEXT PRIMARY KEY) WITHOUT ROWID",
  // Groups whose `record` timer fired: the next complete batch checks their Scheduled Events (with what the relay's watch shows then).
  "CREATE TABLE IF NOT EXISTS gang_record_due (group_key TEXT PRIMARY KEY) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS declared_groups (api TEXT NOT NULL, group_key TEXT NOT NULL, uid TEXT NOT NULL, generation INTEGER NOT NULL, record TEXT NOT NULL, status TEXT NOT NULL, sent TEXT, gen INTEGER NOT NULL, PRIMARY KEY (api, group_key)) WITHOUT ROWID",
];

/** The scheduler's state in SQL. Every method is one or a few statements; nothing is cached in memory. */
export class GangStore {
  readonly #sql: Sql;
  /**
   * The rows of `pods` and `nodes` as stored, kept in memory once read. A pass reads every
   * pod and node, and every row a scan reads is billed: at 20,000 pods and ten changes a
   * second that was a trillion rows read a month. Every statement that writes these tables
   * is in this class and keeps them current; `forgetRows` drops them (a transaction rolled
   * back, a relist's sweep) and the next read loads them again. Kept as the stored text, so
   * each read parses records of its own, as a scan did. At most {@link MAX_KEPT_POD_ROWS}
   * pods are kept (about 500 bytes each): beyond that the isolate's 128 MB comes first, and
   * a pass reads them from the table again.
   */
  #podRows: Map<string, PodRow> | undefined;
  #nodeRows: Map<string, string> | undefined;

  readonly #schedulerName: string | undefined;

  /** `schedulerName`: the pods that are ours (default `fluxnetes`). */
  constructor(sql: Sql, schedulerName?: string) {
    this.#sql = sql;
    this.#schedulerName = schedulerName;
    for (const statement of SCHEMA) sql.exec(statement);
  }

  // --- meta: the list generation and whether a list is complete ---

  /** A meta value. */
  #meta(key: string): string | undefined {
    return this.#sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value;
  }

  #setMeta(key: string, value: string): void {
    this.#sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value);
  }

  /** The current list generation (0 before any relist). */
  generation(): number {
    return Number(this.#meta("generation") ?? "0");
  }

  /** A relist starts: a new generation, and a list in progress. */
  beginList(): void {
    this.#setMeta("generation", String(this.generation() + 1));
    this.#setMeta("listing", "1");
  }

  /** A relist is being received. */
  listing(): boolean {
    return this.#meta("listing") === "1";
  }

  /** A list has completed since the object was created. */
  listed(): boolean {
    return this.#meta("listed") === "1";
  }

  /** The relist is complete: pods and nodes it did not list are removed. */
  endList(): void {
    const generation = this.generation();
    this.#sql.exec("DELETE FROM pods WHERE gen < ?", generation);
    this.#sql.exec("DELETE FROM nodes WHERE gen < ?", generation);
    this.forgetRows();
    this.#sql.exec("DELETE FROM gang_announcers WHERE gen < ?", generation);
    this.#sql.exec("DELETE FROM declared_groups WHERE gen < ?", generation);
    this.#setMeta("listing", "0");
    this.#setMeta("listed", "1");
  }

  // --- pods and nodes ---

  /** Stores a pod as the watch delivers it: ours in any state, others' only while bound and not finished. Returns its record when stored. */
  putPod(object: unknown): PodRecord | undefined {
    const record = parsePod(object, this.#schedulerName);
    if (record.uid === "") return undefined;
    if (!record.ours && (record.nodeName === undefined || record.terminal)) {
      this.deletePod(record.uid);
      return undefined;
    }
    const owner = record.ours ? ownerOf(object) : undefined;
    if (record.ours && record.nodeName === undefined && !record.terminal) {
      this.#sql.exec("INSERT INTO gang_lost_binds (uid, group_key, node) SELECT uid, group_key, bound_node FROM pods WHERE uid = ? AND ours = 1 AND bound_node IS NOT NULL ON CONFLICT (uid) DO NOTHING", record.uid);
    }
    const row: PodRow = { groupKey: record.ours ? record.group.key : null, record: JSON.stringify(record), owner: owner === undefined ? null : JSON.stringify(owner) };
    this.#sql.exec(
      "INSERT INTO pods (uid, namespace, name, group_key, record, ours, bound_node, owner, gen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (uid) DO UPDATE SET namespace = excluded.namespace, name = excluded.name, group_key = excluded.group_key, record = excluded.record, ours = excluded.ours, bound_node = excluded.bound_node, owner = excluded.owner, gen = excluded.gen " +
        // Written only when it changes: a row rewritten as it was is billed as written (a pod's status the record does not keep).
        "WHERE (pods.namespace, pods.name, pods.group_key, pods.record, pods.ours, pods.bound_node, pods.owner, pods.gen) IS NOT (excluded.namespace, excluded.name, excluded.group_key, excluded.record, excluded.ours, excluded.bound_node, excluded.owner, excluded.gen)",
      record.uid,
      record.namespace,
      record.name,
      row.groupKey,
      row.record,
      record.ours ? 1 : 0,
      record.nodeName ?? null,
      row.owner,
      this.generation(),
    );
    this.#podRows?.set(record.uid, row);
    if ((this.#podRows?.size ?? 0) > MAX_KEPT_POD_ROWS) this.#podRows = undefined;
    return record;
  }

  /** Forgets a pod. */
  deletePod(uid: string): void {
    this.#sql.exec("DELETE FROM pods WHERE uid = ?", uid);
    this.#podRows?.delete(uid);
    this.#sql.exec("DELETE FROM gang_lost_binds WHERE uid = ?", uid);
    this.#sql.exec("DELETE FROM gang_refused_pods WHERE uid = ?", uid);
    this.#sql.exec("DELETE FROM gang_scheduled_seen WHERE uid = ?", uid);
  }

  /** A Scheduled Event about pod `uid` was recorded: kept when the pod is one of ours stored. */
  markScheduled(uid: string): void {
    this.#sql.exec("INSERT INTO gang_scheduled_seen (uid) SELECT uid FROM pods WHERE uid = ? AND ours = 1 ON CONFLICT (uid) DO NOTHING", uid);
  }

  /** Which of `uids` have their Scheduled Event recorded. */
  scheduledSeen(uids: readonly string[]): Set<string> {
    const seen = new Set<string>();
    for (const uid of uids) if (this.#sql.exec("SELECT 1 FROM gang_scheduled_seen WHERE uid = ?", uid).toArray().length > 0) seen.add(uid);
    return seen;
  }

  /** The `record` check of a group is due (its timer fired). */
  markRecordDue(group: string): void {
    this.#sql.exec("INSERT INTO gang_record_due (group_key) VALUES (?) ON CONFLICT (group_key) DO NOTHING", group);
  }

  /** The groups whose `record` check is due; forgets them. */
  takeRecordDue(): string[] {
    const groups = this.#sql.exec<{ group_key: string }>("SELECT group_key FROM gang_record_due ORDER BY group_key").toArray().map((row) => row.group_key);
    if (groups.length > 0) this.#sql.exec("DELETE FROM gang_record_due");
    return groups;
  }

  /** The refusals reported, by pod uid. */
  refusedPods(): Map<string, string> {
    return new Map(this.#sql.exec<{ uid: string; reason: string }>("SELECT uid, reason FROM gang_refused_pods").toArray().map((row) => [row.uid, row.reason] as const));
  }

  /** Records the refusal reported on a pod. */
  setRefused(uid: string, reason: string): void {
    this.#sql.exec("INSERT INTO gang_refused_pods (uid, reason) VALUES (?, ?) ON CONFLICT (uid) DO UPDATE SET reason = excluded.reason", uid, reason);
  }

  /** Forgets the refusal of a pod (fixed, or no longer waiting). */
  forgetRefused(uid: string): void {
    this.#sql.exec("DELETE FROM gang_refused_pods WHERE uid = ?", uid);
  }

  /** The binds lost since the last call (pods seen bound, then unbound), by group key, each pod's uid and the node it was bound to; forgets them. */
  takeLostBinds(): Map<string, Map<string, string>> {
    const rows = this.#sql.exec<{ uid: string; group_key: string; node: string }>("SELECT uid, group_key, node FROM gang_lost_binds ORDER BY group_key, uid").toArray();
    if (rows.length > 0) this.#sql.exec("DELETE FROM gang_lost_binds");
    const lost = new Map<string, Map<string, string>>();
    for (const row of rows) lost.set(row.group_key, (lost.get(row.group_key) ?? new Map<string, string>()).set(row.uid, row.node));
    return lost;
  }

  /** Stores a node. */
  putNode(object: unknown): void {
    const record = parseNode(object);
    if (record.name === "") return;
    const text = JSON.stringify(record);
    this.#sql.exec(
      // Written only when it changes: a node's heartbeat leaves its record as it was, and a row rewritten as it was is billed as written.
      "INSERT INTO nodes (name, record, gen) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET record = excluded.record, gen = excluded.gen WHERE (nodes.record, nodes.gen) IS NOT (excluded.record, excluded.gen)",
      record.name,
      text,
      this.generation(),
    );
    this.#nodeRows?.set(record.name, text);
  }

  /** Forgets a node. */
  deleteNode(name: string): void {
    this.#sql.exec("DELETE FROM nodes WHERE name = ?", name);
    this.#nodeRows?.delete(name);
  }

  /** Whether nothing of a gang is stored: no pod of ours, no group row, no allocation (a pass would do nothing). */
  idle(): boolean {
    const row = this.#sql.exec<{ busy: number }>("SELECT EXISTS (SELECT 1 FROM pods WHERE group_key IS NOT NULL) OR EXISTS (SELECT 1 FROM groups) OR EXISTS (SELECT 1 FROM allocations) AS busy").one();
    return row.busy === 0;
  }

  /** Drops the rows kept in memory: the next read loads them from the tables. */
  forgetRows(): void {
    this.#podRows = undefined;
    this.#nodeRows = undefined;
  }

  /** Every stored pod, by uid. */
  pods(): StoredPod[] {
    const rows =
      this.#podRows ??
      new Map(this.#sql.exec<{ uid: string; group_key: string | null; record: string; owner: string | null }>("SELECT uid, group_key, record, owner FROM pods").toArray().map((row) => [row.uid, { groupKey: row.group_key, record: row.record, owner: row.owner }] as const));
    if (rows.size <= MAX_KEPT_POD_ROWS) this.#podRows = rows;
    return byKey(rows).map(storedPod);
  }

  /** The stored pods of one group (ours). */
  podsOf(group: string): StoredPod[] {
    return this.#sql.exec<{ record: string; owner: string | null }>("SELECT record, owner FROM pods WHERE group_key = ? ORDER BY uid", group).toArray().map(storedPod);
  }

  /** Removes the finished pods of a group. */
  deleteTerminalPodsOf(group: string, uids: readonly string[]): void {
    for (const uid of uids) {
      this.#sql.exec("DELETE FROM pods WHERE uid = ? AND group_key = ?", uid, group);
      if (this.#podRows?.get(uid)?.groupKey === group) this.#podRows.delete(uid);
    }
  }

  /** Every node. */
  nodes(): NodeRecord[] {
    this.#nodeRows ??= new Map(this.#sql.exec<{ name: string; record: string }>("SELECT name, record FROM nodes").toArray().map((row) => [row.name, row.record] as const));
    return byKey(this.#nodeRows).map((record) => JSON.parse(record) as NodeRecord);
  }

  // --- allocations ---

  /** Every allocation. */
  allocations(): Allocation[] {
    return this.#sql.exec<{ allocation: string }>("SELECT allocation FROM allocations ORDER BY group_key").toArray().map((row) => allocationOf(row.allocation));
  }

  /** One group's allocation. */
  allocation(group: string): Allocation | undefined {
    const row = this.#sql.exec<{ allocation: string }>("SELECT allocation FROM allocations WHERE group_key = ?", group).toArray()[0];
    return row === undefined ? undefined : allocationOf(row.allocation);
  }

  /** Records an allocation (before its pods are bound). */
  putAllocation(allocation: Allocation): void {
    this.#sql.exec(
      "INSERT INTO allocations (group_key, allocation, started_at, ends_at) VALUES (?, ?, ?, ?) ON CONFLICT (group_key) DO UPDATE SET allocation = excluded.allocation, started_at = excluded.started_at, ends_at = excluded.ends_at",
      allocation.group,
      JSON.stringify(allocation),
      allocation.startedAt,
      allocation.endsAt ?? null,
    );
  }

  /**
   * The groups that may have lost binds: each has an allocation, no bind check pending,
   * no end by its deadline, and a pod of ours stored unbound. Normally none: a started
   * group's bind check repeats until every pod of its allocation is seen bound, and a
   * bound pod's `spec.nodeName` never goes away, unless the API server lost a write it had
   * acknowledged (one statement; the caller checks the allocation's own pods).
   */
  groupsMaybeUnbound(): string[] {
    return this.#sql
      .exec<{ group_key: string }>(
        "SELECT DISTINCT p.group_key FROM pods p JOIN allocations a ON a.group_key = p.group_key " +
          "WHERE p.group_key IS NOT NULL AND p.ours = 1 AND p.bound_node IS NULL " +
          "AND NOT EXISTS (SELECT 1 FROM gang_timers t WHERE t.id = 'bind:' || p.group_key) " +
          "AND NOT EXISTS (SELECT 1 FROM groups g WHERE g.group_key = p.group_key AND g.ended_at IS NOT NULL) ORDER BY p.group_key",
      )
      .toArray()
      .map((row) => row.group_key);
  }

  /** Releases an allocation. */
  deleteAllocation(group: string): void {
    this.#sql.exec("DELETE FROM allocations WHERE group_key = ?", group);
  }

  // --- groups ---

  /** Every group row. */
  groupRows(): GroupRow[] {
    return this.#sql.exec<GroupColumns>("SELECT * FROM groups ORDER BY group_key").toArray().map(groupRow);
  }

  /** One group row. */
  group(key: string): GroupRow | undefined {
    return this.#sql.exec<GroupColumns>("SELECT * FROM groups WHERE group_key = ?", key).toArray().map(groupRow)[0];
  }

  /** Creates the group's row if it has none; true when it was created. */
  ensureGroup(key: string, now: number): boolean {
    return this.#sql.exec("INSERT INTO groups (group_key, first_seen) VALUES (?, ?) ON CONFLICT (group_key) DO NOTHING", key, now).rowsWritten > 0;
  }

  /** Records the rejection text reported on the group's pods. */
  setReported(key: string, text: string): void {
    this.#sql.exec("UPDATE groups SET reported = ? WHERE group_key = ?", text, key);
  }

  /** Records that the arrival warning was given. */
  setWarnedMissing(key: string): void {
    this.#sql.exec("UPDATE groups SET warned_missing = 1 WHERE group_key = ?", key);
  }

  /** Marks a group ended by its deadline at `now`. */
  setEnded(key: string, now: number): void {
    this.#sql.exec("INSERT INTO groups (group_key, first_seen, ended_at) VALUES (?, ?, ?) ON CONFLICT (group_key) DO UPDATE SET ended_at = excluded.ended_at", key, now, now);
  }

  /** Removes a group's row. */
  deleteGroup(key: string): void {
    this.#sql.exec("DELETE FROM groups WHERE group_key = ?", key);
  }

  // --- timers ---

  /** Sets (or moves) the `kind` timer of a group. */
  setTimer(kind: TimerKind, group: string, due: number): void {
    this.#sql.exec(
      "INSERT INTO gang_timers (id, due, kind, group_key) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET due = excluded.due",
      `${kind}:${group}`,
      Math.floor(due),
      kind,
      group,
    );
  }

  /** When the `kind` timer of a group is due, if set. */
  timer(kind: TimerKind, group: string): number | undefined {
    return this.#sql.exec<{ due: number }>("SELECT due FROM gang_timers WHERE id = ?", `${kind}:${group}`).toArray()[0]?.due;
  }

  /** When each group's `kind` timer is due, by group key (one statement for every group). */
  timersOf(kind: TimerKind): Map<string, number> {
    return new Map(this.#sql.exec<{ group_key: string; due: number }>("SELECT group_key, due FROM gang_timers WHERE kind = ?", kind).toArray().map((row) => [row.group_key, row.due] as const));
  }

  /** Cancels a group's timers (of one kind, or all). */
  cancelTimers(group: string, kind?: TimerKind): void {
    if (kind === undefined) this.#sql.exec("DELETE FROM gang_timers WHERE group_key = ?", group);
    else this.#sql.exec("DELETE FROM gang_timers WHERE id = ?", `${kind}:${group}`);
  }

  /** The groups that have a timer of `kind`. */
  timerGroups(kind: TimerKind): Set<string> {
    return new Set(this.#sql.exec<{ group_key: string }>("SELECT group_key FROM gang_timers WHERE kind = ?", kind).toArray().map((row) => row.group_key));
  }

  /** The timers due at `now`, earliest first. */
  dueTimers(now: number): TimerRow[] {
    return this.#sql
      .exec<{ id: string; due: number; kind: string; group_key: string }>("SELECT id, due, kind, group_key FROM gang_timers WHERE due <= ? ORDER BY due, id", now)
      .toArray()
      .map((row) => ({ id: row.id, due: row.due, kind: timerKind(row.kind), group: row.group_key }));
  }

  /** Removes a fired timer. */
  removeTimer(id: string): void {
    this.#sql.exec("DELETE FROM gang_timers WHERE id = ?", id);
  }

  /** The earliest due time of any timer. */
  nextWake(): number | undefined {
    return this.#sql.exec<{ due: number | null }>("SELECT MIN(due) AS due FROM gang_timers").one().due ?? undefined;
  }

  // --- the queue order, announcements and holds (ADR 0025) ---

  /** The next value of the order counter (one per group or Job first seen). */
  #nextSeq(): number {
    const next = Number(this.#meta("seq") ?? "0") + 1;
    this.#setMeta("seq", String(next));
    return next;
  }

  /** Numbers a group first seen now, unless it has its number; a Job that announced it gave it its number first. */
  orderGroup(key: string, now: number): void {
    if (this.#sql.exec("SELECT 1 FROM gang_order WHERE group_key = ?", key).toArray().length > 0) return;
    const announced = this.#sql.exec<{ seq: number | null; first_seen: number | null }>("SELECT MIN(seq) AS seq, MIN(first_seen) AS first_seen FROM gang_announcers WHERE group_key = ?", key).one();
    this.#sql.exec("INSERT INTO gang_order (group_key, seq, first_seen) VALUES (?, ?, ?)", key, announced.seq ?? this.#nextSeq(), Math.min(now, announced.first_seen ?? now));
  }

  /** Every group's order and first sight. */
  order(): { readonly seq: Map<string, number>; readonly firstSeen: Map<string, number> } {
    const rows = this.#sql.exec<{ group_key: string; seq: number; first_seen: number }>("SELECT group_key, seq, first_seen FROM gang_order").toArray();
    const seq = new Map(rows.map((row) => [row.group_key, row.seq] as const));
    const firstSeen = new Map(rows.map((row) => [row.group_key, row.first_seen] as const));
    for (const job of this.#sql.exec<{ group_key: string; seq: number; first_seen: number }>("SELECT group_key, MIN(seq) AS seq, MIN(first_seen) AS first_seen FROM gang_announcers GROUP BY group_key").toArray()) {
      seq.set(job.group_key, Math.min(seq.get(job.group_key) ?? Infinity, job.seq));
      firstSeen.set(job.group_key, Math.min(firstSeen.get(job.group_key) ?? Infinity, job.first_seen));
    }
    return { seq, firstSeen };
  }

  /** Forgets a group's order and hold (it is cleaned up). */
  forgetOrder(key: string): void {
    this.#sql.exec("DELETE FROM gang_order WHERE group_key = ?", key);
    this.#sql.exec("DELETE FROM gang_holds WHERE group_key = ?", key);
  }

  /** The groups numbered but without a row elsewhere, for cleanup. */
  orderedGroups(): string[] {
    return this.#sql.exec<{ group_key: string }>("SELECT group_key FROM gang_order").toArray().map((row) => row.group_key);
  }

  /**
   * Records an object announcing a group — a Job, a PodGroup — numbered when first seen;
   * the group takes the smallest number of its announcers. `announcement` is what its pods
   * will ask (a Job's template); undefined keeps the number but holds nothing by itself (a
   * suspended Job, a PodGroup).
   */
  putAnnouncer(uid: string, key: string, announcement: Announcement | undefined, now: number): void {
    const known = this.#sql.exec<{ seq: number }>("SELECT seq FROM gang_announcers WHERE uid = ?", uid).toArray()[0];
    this.#sql.exec(
      "INSERT INTO gang_announcers (uid, group_key, seq, first_seen, announcement, gen) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO UPDATE SET group_key = excluded.group_key, announcement = excluded.announcement, gen = excluded.gen",
      uid,
      key,
      known?.seq ?? this.#nextSeq(),
      now,
      announcement === undefined ? null : JSON.stringify(announcement),
      this.generation(),
    );
  }

  /** Forgets an announcing object. */
  deleteAnnouncer(uid: string): void {
    this.#sql.exec("DELETE FROM gang_announcers WHERE uid = ?", uid);
  }

  /** The announcements (Jobs' templates) of groups that have not started yet. */
  announcements(): Announcement[] {
    return this.#sql.exec<{ announcement: string | null }>("SELECT announcement FROM gang_announcers WHERE announcement IS NOT NULL AND done = 0 ORDER BY seq").toArray().map((row) => JSON.parse(row.announcement ?? "null") as Announcement);
  }

  /**
   * The objects announcing a group have had their say: it started or was rejected. A Job
   * keeps its row (and number) until deleted, but no longer holds a place when its pods
   * are gone (finished, or deleted by the Job controller).
   */
  settleAnnouncers(key: string): void {
    this.#sql.exec("UPDATE gang_announcers SET done = 1 WHERE group_key = ? AND done = 0", key);
  }

  /** The holds by group key. */
  holds(): Map<string, string[]> {
    return new Map(this.#sql.exec<{ group_key: string; nodes: string }>("SELECT group_key, nodes FROM gang_holds").toArray().map((row) => [row.group_key, JSON.parse(row.nodes) as string[]] as const));
  }

  /** Keeps what a group still arriving holds. */
  putHold(key: string, nodes: readonly string[]): void {
    this.#sql.exec("INSERT INTO gang_holds (group_key, nodes) VALUES (?, ?) ON CONFLICT (group_key) DO UPDATE SET nodes = excluded.nodes", key, JSON.stringify(nodes));
  }

  /** Drops a group's hold (it started, or holds no more). */
  deleteHold(key: string): void {
    this.#sql.exec("DELETE FROM gang_holds WHERE group_key = ?", key);
  }

  // --- PodGroup objects declaring groups (ADR 0026) ---

  /** Stores a PodGroup object of `api` as the watch delivers it; a new incarnation (uid) forgets what was sent to the old one. */
  putDeclaredGroup(api: DeclaringApi, object: unknown): void {
    const record = parseDeclaredGroup(api, object);
    if (record === undefined) return;
    const meta = (object as { metadata?: { uid?: unknown; generation?: unknown } } | null)?.metadata;
    const uid = typeof meta?.uid === "string" ? meta.uid : "";
    const generation = typeof meta?.generation === "number" ? meta.generation : 0;
    const status = (object as { status?: unknown } | null)?.status ?? {};
    this.#sql.exec(
      "INSERT INTO declared_groups (api, group_key, uid, generation, record, status, sent, gen) VALUES (?, ?, ?, ?, ?, ?, NULL, ?) " +
        "ON CONFLICT (api, group_key) DO UPDATE SET sent = CASE WHEN uid = excluded.uid THEN sent ELSE NULL END, uid = excluded.uid, generation = excluded.generation, record = excluded.record, status = excluded.status, gen = excluded.gen",
      api,
      record.key,
      uid,
      generation,
      JSON.stringify(record),
      JSON.stringify(status),
      this.generation(),
    );
  }

  /** Forgets a PodGroup object. */
  deleteDeclaredGroup(api: DeclaringApi, object: unknown): void {
    const record = parseDeclaredGroup(api, object);
    if (record !== undefined) this.#sql.exec("DELETE FROM declared_groups WHERE api = ? AND group_key = ?", api, record.key);
  }

  /** Every stored PodGroup object, with its observed status and the status last written back to it. */
  declaredGroups(): StoredDeclaredGroup[] {
    return this.#sql
      .exec<{ record: string; uid: string; generation: number; status: string; sent: string | null }>("SELECT record, uid, generation, status, sent FROM declared_groups ORDER BY api, group_key")
      .toArray()
      .map((row) => ({ record: JSON.parse(row.record) as DeclaredGroup, uid: row.uid, generation: row.generation, status: JSON.parse(row.status) as unknown, sent: row.sent === null ? undefined : (JSON.parse(row.sent) as unknown) }));
  }

  /** The sizes of the groups the stored PodGroup objects declare. */
  declaredSizes(): GroupSizes {
    return declaredSizes(this.declaredGroups().map((stored) => stored.record));
  }

  /** Why the pods naming a stored PodGroup whose count is refused are refused. */
  declaredRefusals(): GroupRefusals {
    return declaredRefusals(this.declaredGroups().map((stored) => stored.record));
  }

  /** The `scheduleTimeoutSeconds` of the scheduler-plugins PodGroups that set one, by group key: their arrival timeouts. */
  scheduleTimeouts(): Map<string, number> {
    const timeouts = new Map<string, number>();
    for (const { record } of this.declaredGroups()) if (record.scheduleTimeoutSeconds !== undefined) timeouts.set(record.key, record.scheduleTimeoutSeconds);
    return timeouts;
  }

  /** Records the status written back to a PodGroup object (until the watch shows it). */
  setDeclaredSent(api: DeclaringApi, key: string, status: unknown): void {
    this.#sql.exec("UPDATE declared_groups SET sent = ? WHERE api = ? AND group_key = ?", JSON.stringify(status), api, key);
  }
}

/** A stored PodGroup object. */
export interface StoredDeclaredGroup {
  readonly record: DeclaredGroup;
  readonly uid: string;
  readonly generation: number;
  /** Its `status` as last seen. */
  readonly status: unknown;
  /** The status last written back to it, if any. */
  readonly sent: unknown;
}

/** The columns of `groups` (a type, not an interface: SQL rows need an index signature). */
type GroupColumns = {
  readonly group_key: string;
  readonly first_seen: number;
  readonly warned_missing: number;
  readonly rejected_reason: string | null;
  readonly reported: string | null;
  readonly waiting: string | null;
  readonly ended_at: number | null;
};

/** A `groups` row as a `GroupRow`. */
function groupRow(row: GroupColumns): GroupRow {
  return { key: row.group_key, firstSeen: row.first_seen, warnedMissing: row.warned_missing === 1, reported: row.reported, endedAt: row.ended_at };
}

/** A pod row as a stored pod. */
/** The most pod rows kept in memory (~15 MB of text). */
export const MAX_KEPT_POD_ROWS = 30_000;

/** A row of `pods` as kept in memory: what a read of it parses. */
interface PodRow {
  readonly groupKey: string | null;
  readonly record: string;
  readonly owner: string | null;
}

/** The values of `rows` in the order of their keys (as `ORDER BY` the key column, for the ASCII names and uids stored). */
function byKey<T>(rows: ReadonlyMap<string, T>): T[] {
  return [...rows.keys()].sort().map((key) => rows.get(key) as T);
}

function storedPod(row: { record: string; owner: string | null }): StoredPod {
  return { record: JSON.parse(row.record) as PodRecord, owner: row.owner === null ? undefined : (JSON.parse(row.owner) as OwnerRef) };
}

/** An allocation from its JSON (an absent `endsAt` is undefined). */
function allocationOf(json: string): Allocation {
  const parsed = JSON.parse(json) as Allocation;
  return { ...parsed, endsAt: parsed.endsAt ?? undefined };
}

/** The controller ownerReference of a pod, else its first one (the owner a root delete walks up through). */
function ownerOf(object: unknown): OwnerRef | undefined {
  const metadata = (object as { metadata?: { ownerReferences?: unknown } } | null)?.metadata;
  const refs: unknown[] = Array.isArray(metadata?.ownerReferences) ? metadata.ownerReferences : [];
  const owners = refs.flatMap((value) => {
    const ref = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
    const { apiVersion, kind, name, uid } = ref;
    if (typeof apiVersion !== "string" || typeof kind !== "string" || typeof name !== "string") return [];
    return [{ apiVersion, kind, name, uid: typeof uid === "string" ? uid : undefined, controller: ref["controller"] === true }];
  });
  const owner = ownerToFollow({ metadata: { ownerReferences: owners } });
  return owner && { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid };
}
