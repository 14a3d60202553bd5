import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { Sql, SqlStorageValue } from "../../../kit/sql.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";
import { rawNode, rawPod } from "../core/testing/build.ts";
import { GangStore, MAX_KEPT_POD_ROWS } from "./store.ts";

/** The store over a database whose statements' written rows are summed (as Cloudflare bills them). */
function counted(): { store: GangStore; written: () => number } {
  const sql = new SqliteSql(new DatabaseSync(":memory:"));
  let written = 0;
  const counting: Sql = {
    exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]) {
      const cursor = sql.exec<T>(query, ...bindings);
      written += cursor.rowsWritten;
      return cursor;
    },
  };
  return { store: new GangStore(counting), written: () => written };
}

test("a node or pod delivered again as it was stored writes no row; a change writes it", () => {
  const { store, written } = counted();
  store.putNode(rawNode("n1"));
  const afterFirst = written();
  assert.ok(afterFirst > 0);
  // A heartbeat: the node's record (what the pass reads) is the same.
  const beat = rawNode("n1") as { status: { conditions: Record<string, unknown>[] } };
  beat.status.conditions[0] = { ...beat.status.conditions[0], lastHeartbeatTime: "2026-12-08T00:00:10Z" };
  store.putNode(beat);
  assert.equal(written(), afterFirst, "the heartbeat wrote nothing");
  store.putNode(rawNode("n1", { unschedulable: true }));
  assert.ok(written() > afterFirst, "a cordon is written");
  assert.equal(store.nodes()[0]?.unschedulable, true);

  const pod = rawPod("p", { nodeName: "n1" });
  store.putPod(pod);
  const afterPod = written();
  store.putPod(pod);
  assert.equal(written(), afterPod, "the same pod again wrote nothing");
});

test("pods and nodes are read from their tables once, then kept: what they answer stays what a fresh read of the tables answers", () => {
  const db = new DatabaseSync(":memory:");
  const sql = new SqliteSql(db);
  const scans: string[] = [];
  const watching: Sql = {
    exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]) {
      if (/^SELECT .* FROM (pods|nodes)$/.test(query)) scans.push(query);
      return sql.exec<T>(query, ...bindings);
    },
  };
  const store = new GangStore(watching);
  const fresh = (): { pods: string; nodes: string } => {
    const again = new GangStore(new SqliteSql(db));
    return { pods: JSON.stringify(again.pods()), nodes: JSON.stringify(again.nodes()) };
  };
  const same = (what: string): void => assert.deepEqual({ pods: JSON.stringify(store.pods()), nodes: JSON.stringify(store.nodes()) }, fresh(), what);
  store.putNode(rawNode("n2"));
  store.putNode(rawNode("n1"));
  store.putPod(rawPod("b", { nodeName: "n1" }));
  same("after the first puts");
  store.putPod(rawPod("a", { nodeName: "n2" }));
  store.putPod(rawPod("b", { nodeName: "n2" }));
  store.deleteNode("n1");
  same("after a change, a delete and an addition");
  assert.equal(scans.length, 2, "one scan of each table");
  store.beginList();
  store.putNode(rawNode("n2"));
  store.putPod(rawPod("a", { nodeName: "n2" }));
  store.endList();
  same("after a relist that no longer lists pod b");
  assert.equal(store.pods().length, 1);
});

test("past MAX_KEPT_POD_ROWS pods none is kept in memory: each read scans the table, the isolate's memory comes first", () => {
  const db = new DatabaseSync(":memory:");
  const sql = new SqliteSql(db);
  let scans = 0;
  const watching: Sql = {
    exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]) {
      if (query.startsWith("SELECT uid, group_key, record, owner FROM pods")) scans += 1;
      return sql.exec<T>(query, ...bindings);
    },
  };
  const store = new GangStore(watching);
  db.exec("BEGIN");
  for (let i = 0; i <= MAX_KEPT_POD_ROWS; i += 1) store.putPod(rawPod(`p-${i}`, { nodeName: "n1" }));
  db.exec("COMMIT");
  assert.equal(store.pods().length, MAX_KEPT_POD_ROWS + 1);
  assert.equal(store.pods().length, MAX_KEPT_POD_ROWS + 1);
  assert.equal(scans, 2, "read from the table each time");
  store.deletePod(store.pods()[0]?.record.uid ?? "");
  store.pods();
  const before = scans;
  store.pods();
  assert.equal(scans, before, "back under the bound: kept again");
});
