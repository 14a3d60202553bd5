import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { ChangeLog, changeLine, loadState, StateError, writeSnapshot } from "./journal.ts";
import { Store } from "./store.ts";

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "journal-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const cm = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } });

test("snapshot + log: changes after the snapshot are replayed, changes it already holds are skipped", (t) => {
  const dir = folder(t);
  const store = new Store(100);
  const log = new ChangeLog(dir);
  t.after(() => log.close());
  store.subscribe((event) => log.append(changeLine(event)));
  store.commit("/configmaps", "ADDED", cm("a"));
  store.commit("/configmaps", "ADDED", cm("b"));
  // A crash right after the snapshot was renamed in, before the log was emptied: the log repeats what the snapshot holds.
  writeSnapshot(dir, store.resourceVersion, store.entries());
  store.commit("/configmaps", "DELETED", cm("a"));
  store.commit("/configmaps", "ADDED", cm("c"));
  const loaded = loadState(dir);
  assert.deepEqual(loaded?.objects.map((o) => o.object.metadata.name).sort(), ["b", "c"]);
  assert.equal(loaded?.resourceVersion, 4);
  assert.equal(loaded?.replayedChanges, 2);
  assert.deepEqual(loaded?.warnings, []);
});

test("an incomplete or foreign snapshot is refused with the reason, never read as an empty cluster", (t) => {
  const dir = folder(t);
  assert.equal(loadState(dir), undefined, "no snapshot: nothing saved");
  writeFileSync(join(dir, "snapshot.jsonl"), `${JSON.stringify({ format: "edgeloop-sim-state", version: 1, resourceVersion: 9, objects: 2 })}\n{"resource":"/configmaps","object":{"metadata":{"name":"a"}}}\n`);
  assert.throws(() => loadState(dir), (e: unknown) => e instanceof StateError && /incomplete: 1 of 2/.test(e.message));
  writeFileSync(join(dir, "snapshot.jsonl"), "{}\n");
  assert.throws(() => loadState(dir), StateError);
});
