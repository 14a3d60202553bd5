import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { StateBusyError } from "../../sim/persistence.ts";
import { prepareState, stateFolders, type StateFolders } from "./state.ts";

function folders(t: { after(fn: () => void): void }): StateFolders {
  const root = mkdtempSync(join(tmpdir(), "state-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return stateFolders(root);
}

/** A saved cluster and Durable Objects holding something, as a run leaves them. */
function saved(f: StateFolders, parts: { cluster?: boolean; durable?: boolean } = { cluster: true, durable: true }): void {
  if (parts.cluster) {
    mkdirSync(f.cluster, { recursive: true });
    writeFileSync(join(f.cluster, "snapshot.jsonl"), `${JSON.stringify({ format: "edgeloop-sim-state", version: 1, resourceVersion: 1, objects: 0 })}\n`);
  }
  if (parts.durable) {
    mkdirSync(join(f.durableObjects, "Outbox"), { recursive: true });
    writeFileSync(join(f.durableObjects, "Outbox", "x.sqlite"), "");
  }
}

test("both parts kept: resumed; --fresh clears both", (t) => {
  const f = folders(t);
  saved(f);
  assert.deepEqual(prepareState(f, { fresh: false, sim: true }).map((n) => n.level), ["info"]);
  assert.ok(existsSync(join(f.cluster, "snapshot.jsonl")) && existsSync(join(f.durableObjects, "Outbox")));
  assert.match(prepareState(f, { fresh: true, sim: true })[0]?.message ?? "", /--fresh: cleared the cluster and the Durable Object state/);
  assert.equal(existsSync(f.cluster), false);
  assert.deepEqual(readdirSync(f.durableObjects), [], "emptied, made again for this run");
});

test("one part without the other: the other is cleared too, and a warning says so", (t) => {
  const onlyCluster = folders(t);
  saved(onlyCluster, { cluster: true });
  const [note] = prepareState(onlyCluster, { fresh: false, sim: true });
  assert.equal(note?.level, "warn");
  assert.match(note?.message ?? "", /Durable Object state is missing .* cleared the saved cluster too/);
  assert.equal(existsSync(join(onlyCluster.cluster, "snapshot.jsonl")), false);

  const onlyDurable = folders(t);
  saved(onlyDurable, { durable: true });
  const [other] = prepareState(onlyDurable, { fresh: false, sim: true });
  assert.match(other?.message ?? "", /saved cluster is missing .* cleared the Durable Object state too/);
  assert.deepEqual(readdirSync(onlyDurable.durableObjects), []);

  const first = folders(t);
  assert.deepEqual(prepareState(first, { fresh: false, sim: true }), [], "a first start has nothing to say");
  assert.deepEqual(prepareState(first, { fresh: false, sim: true }), [], "nor a second one that saved nothing yet");
});

test("on a real cluster only the Durable Objects are used: nothing is cleared for the missing sim state", (t) => {
  const f = folders(t);
  saved(f, { durable: true });
  assert.deepEqual(prepareState(f, { fresh: false, sim: false }), []);
  assert.ok(existsSync(join(f.durableObjects, "Outbox")));
});

test("a folder another live process owns is refused before anything is cleared", (t) => {
  const f = folders(t);
  saved(f);
  writeFileSync(join(f.cluster, "lock"), `${process.ppid}\n`);
  assert.throws(() => prepareState(f, { fresh: true, sim: true }), StateBusyError);
  assert.ok(existsSync(join(f.cluster, "snapshot.jsonl")) && existsSync(join(f.durableObjects, "Outbox")));
});

test("the state folder and the Durable Objects' folder are the owner's only, even when an older run left them open", (t) => {
  const f = folders(t);
  saved(f);
  chmodSync(f.root, 0o755);
  chmodSync(f.durableObjects, 0o755);
  prepareState(f, { fresh: false, sim: true });
  assert.equal(statSync(f.root).mode & 0o777, 0o700);
  assert.equal(statSync(f.durableObjects).mode & 0o777, 0o700);
});
