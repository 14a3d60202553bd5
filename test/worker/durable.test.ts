/**
 * The Durable Objects in real workerd: ledger claims and their expiry by alarm, the
 * outbox's order and redelivery until acknowledged (through the signed route), long
 * polling, and a restart of workerd keeping both objects' state (SQLite on disk).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { ClaimsAnswer, LedgerContract } from "../../durable/contracts.ts";
import { ledgerObjectName, OUTBOX_OBJECT_NAME, replayShardName } from "../../durable/names.ts";
import { LEDGER, OUTBOX, REPLAY } from "../../durable/table.ts";
import type { UsageContract } from "../../durable/contracts.ts";
import type { OutboxBatch } from "../../protocol/index.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { SECRET, signed } from "./client.ts";

let worker: RunningWorker;
let persistDir: string;
before(async () => {
  persistDir = mkdtempSync(join(tmpdir(), "edgeloop-do-"));
  worker = await startWorker({ secret: SECRET, persistDir, extraControllerDirs: [join(import.meta.dirname, "../fixtures/controllers")] });
});
after(async () => {
  await worker.stop();
  rmSync(persistDir, { recursive: true, force: true });
});

const ledger = (namespace: string): Promise<LedgerContract> => worker.durableObject(LEDGER, ledgerObjectName(namespace));

/** One claim alone, as a plan with one claimed action sends it: whether it was granted. */
async function claim(stub: LedgerContract, key: string, ttlSeconds: number): Promise<boolean> {
  const answer = await stub.claimAll([{ key, ttlSeconds }]);
  return !answer.replayed && answer.granted[0] === true;
}

function secretEvent(name: string, type = "ADDED"): Record<string, unknown> {
  return { type, kind: "Secret.v1", object: { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: "default", uid: `uid-${name}` } } };
}

async function postEvents(names: string[]): Promise<void> {
  const response = await signed(`${worker.url}/v1/events/journal`, {
    body: { controller: "journal", events: names.map((n) => secretEvent(n)), now: new Date().toISOString() },
  });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { actions: [] });
}

async function readOutbox(cursor: string, wait = 0): Promise<OutboxBatch> {
  const response = await signed(`${worker.url}/v1/outbox?cursor=${cursor}&wait=${wait}`);
  assert.equal(response.status, 200);
  return (await response.json()) as OutboxBatch;
}

const messages = (batch: OutboxBatch): string[] => batch.entries.map((e) => (e.plan.actions[0] as { message: string }).message);

test("each object meters what Cloudflare bills it for: requests, rows read and written, bytes stored", async () => {
  const name = ledgerObjectName("metered");
  const stub = await ledger("metered");
  const meter = (await worker.durableObject(LEDGER, name)) as unknown as UsageContract;
  await stub.claimAll([{ key: "a", ttlSeconds: 60 }]);
  const first = await meter.usage();
  assert.equal(first.requests, 1, "one claimAll; reading the meter is not counted");
  assert.ok(first.rowsWritten >= 1, `a granted claim writes its row (${first.rowsWritten})`);
  assert.ok(first.storedBytes > 0);
  await stub.claimAll([{ key: "b", ttlSeconds: 60 }, { key: "c", ttlSeconds: 60 }]);
  assert.equal(await claim(stub, "a", 60), false);
  const second = await meter.usage();
  assert.equal(second.requests, 3);
  assert.ok(second.rowsWritten >= first.rowsWritten + 2, `two more claims written (${first.rowsWritten} → ${second.rowsWritten})`);
  assert.ok(second.rowsRead > first.rowsRead, `the held claim was read (${first.rowsRead} → ${second.rowsRead})`);
});

test("an object's active time counts a long poll's wait, as Cloudflare bills its duration", async () => {
  // An Outbox of its own (not the Worker's): a read that finds nothing parks for its wait.
  const outbox = await worker.durableObject(OUTBOX, "metered-outbox");
  const meter = (await worker.durableObject(OUTBOX, "metered-outbox")) as unknown as UsageContract;
  const started = performance.now();
  const batch = await outbox.read("0", 1);
  assert.deepEqual([batch.cursor, batch.entries.length], ["0", 0]);
  const waited = performance.now() - started;
  const usage = await meter.usage();
  assert.equal(usage.requests, 1);
  assert.ok(usage.activeMs >= 900 && usage.activeMs <= waited + 50, `active ${usage.activeMs} ms of a ${Math.round(waited)} ms long poll`);
});

test("the replay guard knows a signature until it expires", async () => {
  const stub = await worker.durableObject(REPLAY, replayShardName("sha256=aa"));
  const later = Date.now() + 60_000;
  assert.equal(await stub.first("sha256=aa", later), true);
  assert.equal(await stub.first("sha256=aa", later), false, "a repeat inside the window is refused");
  const past = Date.now() - 1;
  assert.equal(await stub.first("sha256=ab", past), true);
  assert.equal(await stub.first("sha256=ab", later), true, "a signature whose window has passed is accepted again");
  assert.equal(await stub.first("sha256=ab", later), false);
  assert.equal(await stub.size(), 2);
});

test("a ledger claim is granted once, refused until it expires, and the alarm sweeps it", async () => {
  const stub = await ledger("claims");
  assert.equal(await claim(stub, "pod-a", 1), true);
  assert.equal(await claim(stub, "pod-a", 1), false);
  assert.equal(await claim(stub, "pod-b", 60), true);
  assert.equal(await stub.size(), 2);
  await waitFor("the alarm to sweep the expired claim (claims left)", () => stub.size(), (size) => size === 1, { timeoutMs: 15_000 });
  assert.equal(await claim(stub, "pod-a", 1), true, "expired claims are free again");
  assert.equal(await claim(stub, "pod-b", 60), false, "live claims stay");
});

test("a released claim is free again at once; releasing a free key changes nothing", async () => {
  const stub = await ledger("release");
  assert.equal(await claim(stub, "pod-r", 600), true);
  assert.equal(await claim(stub, "pod-r", 600), false);
  assert.equal(await stub.release("pod-r"), true);
  assert.equal(await stub.size(), 0);
  assert.equal(await claim(stub, "pod-r", 600), true, "granted again without waiting for the TTL");
  assert.equal(await stub.release("never-claimed"), false);
  assert.equal(await claim(stub, "pod-r", 600), false, "a fresh claim holds as before");
});

test("a remembered value is answered to every later caller until it expires or is released", async () => {
  const stub = await ledger("remember");
  assert.equal(await stub.remember("api/x/1", 1, "first"), "first");
  assert.equal(await stub.remember("api/x/1", 1, "second"), "first", "the first caller's value");
  assert.equal(await stub.remember("api/x/2", 60, "other"), "other");
  await waitFor("the value to expire (the value remembered)", () => stub.remember("api/x/1", 1, "third"), (value) => value === "third", { timeoutMs: 15_000 });
  assert.equal(await stub.release("api/x/2"), true);
  assert.equal(await stub.remember("api/x/2", 60, "after release"), "after release");
});

/** An answer read field by field: through Miniflare's proxy an RPC result is not a plain object. */
async function plain(answer: Promise<ClaimsAnswer>): Promise<ClaimsAnswer> {
  const read = await answer;
  return read.replayed ? { replayed: true } : { replayed: false, granted: [...read.granted] };
}

test("claims of one plan go in one call: answered in order, a key twice refused the second time", async () => {
  const stub = await ledger("batch");
  assert.equal(await claim(stub, "held", 60), true);
  assert.deepEqual(await plain(stub.claimAll([{ key: "a", ttlSeconds: 60 }, { key: "held", ttlSeconds: 60 }, { key: "a", ttlSeconds: 60 }, { key: "b", ttlSeconds: 60 }])), { replayed: false, granted: [true, false, false, true] });
  assert.equal(await claim(stub, "b", 60), false, "granted in a batch: held like any claim");
  assert.deepEqual(await plain(stub.claimAll([])), { replayed: false, granted: [] });
});

test("claims sent at once by many callers are written together, and each key is granted once", async () => {
  const stub = await ledger("together");
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => stub.claimAll([{ key: `k${i % 10}`, ttlSeconds: 60 }, { key: `k${i % 10}#event`, ttlSeconds: 60 }])));
  const granted = answers.flatMap((answer) => (answer.replayed ? [] : answer.granted)).filter(Boolean).length;
  assert.equal(granted, 20, "10 keys and their Events' keys, each granted to one caller");
  assert.equal(await stub.size(), 20);
});

test("a batch carrying its request's signature is refused whole when the signature comes again", async () => {
  const stub = await ledger("once");
  const once = { signature: "sha256=" + "c".repeat(64), expiresAt: Date.now() + 60_000 };
  assert.deepEqual(await plain(stub.claimAll([{ key: "first", ttlSeconds: 60 }], once)), { replayed: false, granted: [true] });
  assert.deepEqual(await plain(stub.claimAll([{ key: "other", ttlSeconds: 60 }], once)), { replayed: true });
  assert.equal(await claim(stub, "other", 60), true, "a refused batch holds nothing");
  const expired = { signature: "sha256=" + "d".repeat(64), expiresAt: Date.now() - 1 };
  assert.deepEqual(await plain(stub.claimAll([], expired)), { replayed: false, granted: [] });
  assert.deepEqual(await plain(stub.claimAll([], expired)), { replayed: false, granted: [] }, "a signature whose window has passed is accepted again");
});

test("ledgers are per namespace", async () => {
  assert.equal(await claim(await ledger("ns-one"), "same-key", 60), true);
  assert.equal(await claim(await ledger("ns-two"), "same-key", 60), true);
});

test("the outbox delivers in order and redelivers until a later cursor acknowledges", async () => {
  await postEvents(["one", "two", "three"]);
  const first = await readOutbox("0");
  assert.deepEqual(messages(first), ["ADDED one", "ADDED two", "ADDED three"]);
  const again = await readOutbox("0");
  assert.deepEqual(messages(again), messages(first), "not acknowledged yet: delivered again");
  const second = await readOutbox(first.entries[0]?.id ?? "0");
  assert.deepEqual(messages(second), ["ADDED two", "ADDED three"], "a cursor acknowledges what it covers");
  const drained = await readOutbox(first.cursor);
  assert.deepEqual(drained.entries, []);
  assert.equal(drained.cursor, first.cursor);
  const outbox = await worker.durableObject(OUTBOX, OUTBOX_OBJECT_NAME);
  assert.equal(await outbox.pending(), 0);
});

test("a long poll returns as soon as an entry arrives", async () => {
  const { cursor } = await readOutbox("0");
  const polling = readOutbox(cursor, 30);
  await postEvents(["late"]);
  const batch = await polling;
  assert.deepEqual(messages(batch), ["ADDED late"]);
  await readOutbox(batch.cursor);
});

test("a restart of workerd keeps ledger claims and unacknowledged outbox entries", async () => {
  assert.equal(await claim(await ledger("restart"), "kept", 600), true);
  const { cursor } = await readOutbox("0");
  await postEvents(["survivor"]);
  await worker.restart();
  assert.equal(await claim(await ledger("restart"), "kept", 600), false);
  assert.deepEqual(messages(await readOutbox(cursor)), ["ADDED survivor"]);
});
