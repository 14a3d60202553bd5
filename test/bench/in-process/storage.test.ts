/** The in-process baseline's Durable Object storage and namespace (ADR 0015), without a Worker. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { waitFor } from "../../../cli/wait.ts";
import { InProcessNamespace, type DurableObjectClass } from "./namespace.ts";
import { InProcessStorage } from "./storage.ts";

test("sql.exec: rows, one(), rowsWritten, RETURNING and BLOBs as workerd answers them", () => {
  const storage = new InProcessStorage();
  try {
    storage.sql.exec("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT, b BLOB); CREATE INDEX t_v ON t (v)");
    const inserted = storage.sql.exec<{ id: number }>("INSERT INTO t (v, b) VALUES (?, ?) RETURNING id", "a", new Uint8Array([1, 2]).buffer);
    assert.equal(inserted.one().id, 1);
    assert.equal(inserted.rowsWritten, 1);
    storage.sql.exec("INSERT INTO t (v) VALUES (?)", "b");
    assert.deepEqual(storage.sql.exec<{ v: string }>("SELECT v FROM t ORDER BY id").toArray().map((row) => row.v), ["a", "b"]);
    const blob = storage.sql.exec<{ b: ArrayBuffer }>("SELECT b FROM t WHERE id = ?", 1).one().b;
    assert.ok(blob instanceof ArrayBuffer);
    assert.deepEqual([...new Uint8Array(blob)], [1, 2]);
    assert.equal(storage.sql.exec("UPDATE t SET v = ?", "c").rowsWritten, 2);
    assert.equal(storage.sql.exec("DELETE FROM t WHERE id = ?", 7).rowsWritten, 0);
    assert.throws(() => storage.sql.exec("SELECT v FROM t").one(), /exactly one/);
    assert.equal(storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM t").one().n, 2);
  } finally {
    storage.close();
  }
});

test("transactionSync keeps all of a callback's writes, or none when it throws", () => {
  const storage = new InProcessStorage();
  try {
    storage.sql.exec("CREATE TABLE t (v TEXT)");
    assert.equal(
      storage.transactionSync(() => {
        storage.sql.exec("INSERT INTO t (v) VALUES ('kept')");
        return 1;
      }),
      1,
    );
    assert.throws(() =>
      storage.transactionSync(() => {
        storage.sql.exec("INSERT INTO t (v) VALUES ('dropped')");
        throw new Error("no");
      }),
    );
    assert.deepEqual(storage.sql.exec<{ v: string }>("SELECT v FROM t").toArray().map((row) => row.v), ["kept"]);
  } finally {
    storage.close();
  }
});

test("the alarm: set, read, deleted, each change told to the listener", async () => {
  const told: (number | null)[] = [];
  const storage = new InProcessStorage((at) => told.push(at));
  try {
    assert.equal(await storage.getAlarm(), null);
    await storage.setAlarm(1_000);
    await storage.setAlarm(new Date(2_000));
    assert.equal(await storage.getAlarm(), 2_000);
    assert.equal(storage.takeAlarm(), 2_000);
    assert.equal(await storage.getAlarm(), null);
    await storage.setAlarm(3_000);
    await storage.deleteAlarm();
    assert.deepEqual(told, [1_000, 2_000, 3_000, null]);
  } finally {
    storage.close();
  }
});

/** A Durable Object as edgeloop writes them: state in SQL, an alarm. */
class Counter {
  readonly #storage: InProcessStorage;
  fired = 0;
  constructor(state: unknown) {
    this.#storage = (state as { storage: InProcessStorage }).storage;
    this.#storage.sql.exec("CREATE TABLE IF NOT EXISTS n (v INTEGER)");
  }
  add(item: { v: number }): Promise<{ total: number; item: { v: number } }> {
    this.#storage.sql.exec("INSERT INTO n (v) VALUES (?)", item.v);
    item.v = -1;
    return Promise.resolve({ total: this.#storage.sql.exec<{ t: number }>("SELECT SUM(v) AS t FROM n").one().t, item });
  }
  async ring(inMs: number): Promise<void> {
    await this.#storage.setAlarm(Date.now() + inMs);
  }
  alarm(): Promise<void> {
    this.fired++;
    return Promise.resolve();
  }
  firedCount(): Promise<number> {
    return Promise.resolve(this.fired);
  }
}

test("a namespace: one instance per name, arguments and results copied as RPC copies them, alarms fire", async () => {
  const namespace = new InProcessNamespace(Counter as unknown as DurableObjectClass, () => ({}));
  try {
    type Stub = { add(item: { v: number }): Promise<{ total: number; item: { v: number } }>; ring(ms: number): Promise<void>; firedCount(): Promise<number>; missing(): Promise<void> };
    const a = namespace.get(namespace.idFromName("a")) as Stub;
    const again = namespace.get(namespace.idFromName("a")) as Stub;
    const b = namespace.get(namespace.idFromName("b")) as Stub;
    const item = { v: 2 };
    assert.equal((await a.add(item)).total, 2);
    assert.equal(item.v, 2, "the callee changed its copy, not the caller's object");
    assert.equal((await again.add({ v: 3 })).total, 5, "the same name reaches the same object");
    assert.equal((await b.add({ v: 1 })).total, 1, "another name, another object and storage");
    await assert.rejects(a.missing(), /does not implement/);
    await a.ring(10);
    await waitFor("the alarm to fire (alarms fired)", () => a.firedCount(), (fired) => fired > 0, { timeoutMs: 5_000 });
    assert.equal(await a.firedCount(), 1);
  } finally {
    namespace.close();
  }
});

test("with a file, the state outlives the storage object (each commit written before it returns)", () => {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-in-process-storage-"));
  try {
    const first = new InProcessStorage(undefined, join(dir, "o.sqlite"));
    first.sql.exec("CREATE TABLE t (v TEXT)");
    first.sql.exec("INSERT INTO t (v) VALUES (?)", "kept");
    first.close();
    const second = new InProcessStorage(undefined, join(dir, "o.sqlite"));
    assert.deepEqual(second.sql.exec<{ v: string }>("SELECT v FROM t").toArray().map((row) => row.v), ["kept"]);
    second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
