import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { EventBatch } from "../../../../protocol/reconcile.ts";
import { rawNode, rawPod } from "../core/testing/build.ts";
import { GangQueueLogic, type GangQueueOptions } from "./scheduler.ts";
import type { Sql, SqlCursor, SqlStorageValue } from "../../../kit/sql.ts";
import type { GangSummary } from "./summary.ts";
import { at, batch, event, list, with_ } from "./testing/batches.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";

const OPTIONS: GangQueueOptions = { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 60, bindCheckSeconds: 10 };

/** `Sql` that counts the statements it runs. */
class CountingSql implements Sql {
  statements = 0;
  readonly #inner: Sql;

  constructor(inner: Sql) {
    this.#inner = inner;
  }

  exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]): SqlCursor<T> {
    this.statements += 1;
    return this.#inner.exec<T>(query, ...bindings);
  }
}

/** A scheduler, and the rows a freshly started object over the same database computes (one pass, writing nothing). */
function pair(): { gang: GangQueueLogic; sql: CountingSql; fresh: (seconds: number) => ReturnType<GangQueueLogic["groups"]> } {
  const db = new SqliteSql(new DatabaseSync(":memory:"));
  const sql = new CountingSql(db);
  return { gang: new GangQueueLogic(sql, OPTIONS), sql, fresh: (seconds) => new GangQueueLogic(db, OPTIONS).groups(at(seconds)) };
}

/** `pod` bound to `node` and running. */
function bound(pod: Record<string, unknown>, node: string): Record<string, unknown> {
  return with_(pod, { spec: { nodeName: node }, status: { phase: "Running" } });
}

/**
 * A row without why it waits: the pass that starts a group explains the groups it walked
 * before that start without it, a pass over the state after it with it (the next batch,
 * the binds' own watch events, brings that pass).
 */
function decisions(row: GangSummary): Omit<GangSummary, "reason" | "waitingFor"> {
  const { reason: _reason, waitingFor: _waitingFor, ...rest } = row;
  return rest;
}

test("GET /v1/gangs reads the last pass's rows: no SQL statement, no pass, the same rows a pass would compute, after every kind of change", () => {
  const { gang, sql, fresh } = pair();
  const head = [0, 1].map((i) => rawPod(`h-${i}`, { group: "head", size: 2, cpu: "5", created: 2 }));
  const run = rawPod("r-0", { group: "r", size: 1, cpu: "6", deadline: 100, created: 1 });
  const small = rawPod("s-0", { group: "small", size: 1, cpu: "1", deadline: 30, created: 3 });
  const prov = rawPod("p-0", { group: "prov", size: 3, cpu: "1", created: 4 });
  const web = rawPod("web", { scheduler: "default-scheduler", nodeName: "n2", cpu: "1" });
  // `kept`: the step leaves the rows a read answers without a statement (a pass ran, or a timer changed no row).
  const steps: { readonly what: string; readonly seconds: number; readonly kept: boolean; readonly step: () => void }[] = [
    { what: "a list with a pass (it starts groups, a reservation, a backfill, a provisional group)", seconds: 0, kept: true, step: () => gang.apply(list([rawNode("n1"), rawNode("n2"), run, ...head, small, prov])) },
    { what: "the binds seen", seconds: 2, kept: true, step: () => gang.apply(batch([event("MODIFIED", bound(run, "n1")), event("MODIFIED", bound(small, "n1"))], 2)) },
    { what: "another scheduler's pod (a pass)", seconds: 3, kept: true, step: () => gang.apply(batch([event("ADDED", web)], 3)) },
    { what: "a bind check", seconds: 10, kept: true, step: () => gang.due(at(10)) },
    { what: "a relist begins (no pass)", seconds: 11, kept: false, step: () => gang.apply(batch([event("ADDED", rawNode("n1"), true)], 11, { relist: true, partialList: true })) },
    { what: "the relist ends", seconds: 12, kept: true, step: () => gang.apply(batch([rawNode("n2"), bound(run, "n1"), ...head, bound(small, "n1"), prov, web].map((o) => event("ADDED", o, true)), 12)) },
    { what: "small's deadline fires (no pass)", seconds: 30, kept: false, step: () => gang.due(at(30)) },
    { what: "small's pod finishes: cleanup", seconds: 31, kept: true, step: () => gang.apply(batch([event("MODIFIED", with_(bound(small, "n1"), { status: { phase: "Failed" } }))], 31)) },
    { what: "the arrival timeout", seconds: 64, kept: true, step: () => gang.due(at(64)) },
    { what: "r's deadline fires", seconds: 100, kept: false, step: () => gang.due(at(100)) },
    { what: "r's pod gone: head starts", seconds: 101, kept: true, step: () => gang.apply(batch([event("DELETED", bound(run, "n1"))], 101)) },
  ];
  for (const { what, seconds, kept, step } of steps) {
    step();
    const first = sql.statements;
    const rows = gang.groups(at(seconds));
    assert.equal(sql.statements === first, kept, `after ${what}: ${kept ? "the rows were kept" : "the rows are computed at the first read"}`);
    const starts = what.includes("starts");
    assert.deepEqual(starts ? rows.map(decisions) : rows, starts ? fresh(seconds).map(decisions) : fresh(seconds), `after ${what}: the kept rows are a pass's`);
    const before = sql.statements;
    assert.deepEqual(gang.groups(at(seconds + 1)).map(decisions), fresh(seconds + 1).map(decisions), `after ${what}, a second later`);
    assert.equal(sql.statements, before, `after ${what}: a read runs no statement`);
  }
});

test("a batch that runs no pass leaves no stale rows: an idle store shows none, a partial list is computed when read", () => {
  const { gang, sql } = pair();
  gang.apply(list([rawNode("n1"), rawPod("a-0", { group: "g", size: 1, cpu: "1" })]));
  assert.deepEqual(gang.groups(at(0)).map((r) => r.state), ["running"]);
  gang.apply(batch([event("DELETED", rawPod("a-0", { group: "g", size: 1, cpu: "1", nodeName: "n1" }))], 1));
  const before = sql.statements;
  assert.deepEqual(gang.groups(at(1)), [], "the group's last pod gone: cleaned up by the batch's pass");
  assert.equal(sql.statements, before);
  const other: EventBatch = batch([event("ADDED", rawPod("web", { scheduler: "default-scheduler", nodeName: "n1", cpu: "1" }))], 2);
  gang.apply(other);
  assert.deepEqual(gang.groups(at(2)), [], "an idle store: no gang, no pass, no rows");
  gang.apply(batch([event("ADDED", rawPod("b-0", { group: "h", size: 2, cpu: "1" }), true)], 3, { relist: true, partialList: true }));
  assert.deepEqual(gang.groups(at(3)).map((r) => [r.group, r.state]), [["h", "provisional"]], "a partial list: computed at the read");
});

test("a reserved start already past reads as now: the rows keep absolute times, the read makes them current", () => {
  const { gang } = pair();
  const run = rawPod("r-0", { group: "r", size: 1, cpu: "8", deadline: 60, created: 1 });
  gang.apply(list([rawNode("n1"), run, rawPod("w-0", { group: "w", size: 1, cpu: "8", created: 2 })]));
  assert.equal(gang.groups(at(10)).find((r) => r.group === "w")?.reservedStart, new Date(at(60)).toISOString());
  assert.equal(gang.groups(at(75)).find((r) => r.group === "w")?.reservedStart, new Date(at(75)).toISOString(), "r overran its expected end");
});
