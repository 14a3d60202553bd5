/**
 * The API server loses its recent state (restored from an older backup: fewer objects,
 * lower resourceVersions) while the relay runs: the relay must not keep re-watching from
 * a resourceVersion the server has not reached. It relists, drops the ghosts, reconciles
 * what is created afterwards, and counts the relist.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { waitForObject } from "../support/cluster-waits.ts";
import { testStack } from "./harness.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
let stack: Stack;
let restored: RunningSim | undefined;
const stateDir = mkdtempSync(join(tmpdir(), "edgeloop-rollback-state-"));
const backupDir = mkdtempSync(join(tmpdir(), "edgeloop-rollback-backup-"));

before(async () => {
  stack = await testStack({ clusterStateDir: stateDir });
});
after(async () => {
  await stack.relay.stop();
  await stack.worker.stop();
  await restored?.stop();
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(backupDir, { recursive: true, force: true });
});

function parent(name: string): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data: { a: "1" } } as KubeObject;
}

const cached = (name: string): boolean => stack.relay.engine.objectsOf(CM).some((o) => o.metadata.namespace === "default" && o.metadata.name === name);

test("after the API server is restored from an older backup, the relay relists: ghosts go, new parents are reconciled, the relist is counted", async () => {
  await stack.sim.cluster.create(parent("kept"));
  await waitForObject(stack.sim.cluster, CM, "default", "kept-mirror", () => true, 15_000);
  // The backup: the sim's saved state as it is now (without its lock).
  stack.sim.state?.flush();
  cpSync(stateDir, backupDir, { recursive: true, filter: (source) => !source.endsWith("/lock") });
  const backupRv = stack.sim.cluster.store.resourceVersion;

  const ghosts = Array.from({ length: 5 }, (_, i) => `ghost-${i}`);
  for (const name of ghosts) await stack.sim.cluster.create(parent(name));
  await waitFor("ghosts mirrored and cached (those not yet)", () => ghosts.flatMap((g) => [g, `${g}-mirror`]).filter((name) => !cached(name)), (missing) => missing.length === 0, { timeoutMs: 15_000 });
  assert.ok(stack.sim.cluster.store.resourceVersion > backupRv);

  // The API server comes back on the same address with the backup's state.
  const port = Number(new URL(stack.sim.url).port);
  await stack.sim.stop();
  restored = await startSim({ port, stateDir: backupDir, nodes: 3 });
  assert.ok(restored.cluster.store.resourceVersion < stack.sim.cluster.store.resourceVersion, "the restored server is behind the relay");
  await restored.cluster.create(parent("after"));

  const sim = restored;
  await waitForObject(sim.cluster, CM, "default", "after-mirror", () => true, 20_000);
  await waitFor("the ghosts gone from the relay's cache (those still cached)", () => ghosts.flatMap((g) => [g, `${g}-mirror`]).filter(cached), (left) => left.length === 0, { timeoutMs: 20_000 });
  assert.ok(cached("kept") && cached("after"), "what the restored server holds is cached");
  assert.match(await stack.relay.engine.metrics.render(), /^edgeloop_relists_total\{informer="ConfigMap\.v1\|\|",reason="too-large"\} [1-9]/m);
});

test("a forced relist (SIGHUP) lists every informer again, keeps what the server holds, and is counted", async () => {
  const relists = async (): Promise<number> => Number(/^edgeloop_relists_total\{informer="ConfigMap\.v1\|\|",reason="forced"\} (\d+)/m.exec(await stack.relay.engine.metrics.render())?.[1] ?? 0);
  const before = await relists();
  stack.relay.engine.relistAll("test");
  await waitFor("the forced relist counted (forced relists)", relists, (count) => count > before, { timeoutMs: 10_000 });
  assert.ok(cached("kept") && cached("after-mirror"));
});
