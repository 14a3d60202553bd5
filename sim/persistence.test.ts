import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { waitFor } from "../cli/wait.ts";
import type { KubeObject } from "../protocol/index.ts";
import { waitForGone, waitForObject } from "../test/support/cluster-waits.ts";
import { startSim, type RunningSim } from "./index.ts";
import { clearState, StateBusyError } from "./persistence.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const NAMESPACE = { apiVersion: "v1", kind: "Namespace" };

function configMap(name: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", ...extra }, data: { k: name } } as KubeObject;
}

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.dev" },
  spec: {
    group: "example.dev",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
} as unknown as KubeObject;

function stateDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "sim-state-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a sim with a state folder comes back with its objects, uids, resourceVersions and custom kinds, and goes on from there", async (t) => {
  const dir = stateDir(t);
  const first = await startSim({ stateDir: dir, controllers: false });
  assert.equal(first.state?.restored, undefined, "an empty folder starts a fresh cluster");
  const kept = await first.cluster.create(configMap("kept"));
  await first.cluster.create(configMap("gone"));
  await first.cluster.delete(CM, "default", "gone");
  await first.cluster.create(CRD);
  const widget = await first.cluster.create({ apiVersion: "example.dev/v1", kind: "Widget", metadata: { name: "w", namespace: "default" }, spec: { size: 3 } } as KubeObject);
  const rv = first.cluster.store.resourceVersion;
  const saved = [...first.cluster.store.entries()].length;
  await first.stop();
  assert.equal(statSync(join(dir, "snapshot.jsonl")).mode & 0o777, 0o600, "the state is private");

  const second = await startSim({ stateDir: dir, controllers: false });
  t.after(() => second.stop());
  assert.deepEqual(second.state?.restored, { objects: saved, resourceVersion: rv }, "every object, nothing more");
  const back = await second.cluster.get(CM, "default", "kept");
  assert.equal(back.metadata.uid, kept.metadata.uid);
  assert.equal(back.metadata.resourceVersion, kept.metadata.resourceVersion);
  assert.equal(await second.cluster.find(CM, "default", "gone"), undefined, "a deletion is kept too");
  const list = (await (await fetch(`${second.url}/apis/example.dev/v1/namespaces/default/widgets`)).json()) as { items: KubeObject[] };
  assert.deepEqual(list.items.map((w) => w.metadata.uid), [widget.metadata.uid], "the CRD's kind is served again over HTTP");
  const next = await second.cluster.create(configMap("next"));
  assert.ok(Number(next.metadata.resourceVersion) > rv, "resourceVersion continues from the stored maximum");
  assert.equal(second.cluster.store.history.since(rv - 1), "gone", "a watch from before the restart relists");
  assert.notEqual(second.cluster.store.history.since(rv), "gone", "a watch from the restart point goes on");
  await second.stop();

  clearState(dir);
  const fresh = await startSim({ stateDir: dir, controllers: false });
  t.after(() => fresh.stop());
  assert.equal(fresh.state?.restored, undefined);
  assert.equal(await fresh.cluster.find(CM, "default", "kept"), undefined, "--fresh starts empty");
});

test("after a restart the controllers see the restored objects: owners before dependents, deletions resume, nodes report in at once", async (t) => {
  const dir = stateDir(t);
  const options = { stateDir: dir, nodes: ["n1"], heartbeatSeconds: 30, nodeGraceSeconds: 120 };
  const first = await startSim(options);
  await waitForObject(first.cluster, NODE, undefined, "n1");
  const owner = await first.cluster.create(configMap("owner"));
  await first.cluster.create(configMap("child", { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid ?? "", controller: true, blockOwnerDeletion: true }] }));
  // The owner changes after its child: by resourceVersion alone the child would come first.
  await first.cluster.patch(CM, "default", "owner", { data: { k: "changed" } }, "merge");
  await first.cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox" }] } } as KubeObject);
  await waitForObject(first.cluster, POD, "default", "p", (pod) => (pod as { status?: { phase?: string } }).status?.phase === "Running");
  const terminating = await first.cluster.delete(POD, "default", "p", { gracePeriodSeconds: 1 });
  assert.ok(terminating.metadata.deletionTimestamp, "graceful: the kubelet has a second to finish");
  await first.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } } as KubeObject);
  await first.cluster.create(configMap("held", { namespace: "doomed", finalizers: ["example.dev/hold"] }));
  await first.cluster.delete(NAMESPACE, undefined, "doomed");
  await waitForObject(first.cluster, CM, "doomed", "held", (held) => Boolean(held.metadata.deletionTimestamp));
  await first.stop();

  const restartedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const second = await startSim(options);
  t.after(() => second.stop());
  const node = (await second.cluster.get(NODE, undefined, "n1")) as { status?: { conditions?: { type: string; lastHeartbeatTime?: string }[] } };
  const heartbeat = node.status?.conditions?.find((c) => c.type === "Ready")?.lastHeartbeatTime ?? "";
  assert.ok(Date.parse(heartbeat) >= restartedAt.getTime(), `the kubelet reported in at start (heartbeat ${heartbeat})`);
  await waitForGone(second.cluster, POD, "default", "p");
  // The collector checks dependents one at a time, in the order it saw them: a dependent of an
  // owner that never existed, made now, is collected only once the restored child was checked.
  await second.cluster.create(configMap("orphan", { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "never", uid: "never-existed", controller: true }] }));
  await waitForGone(second.cluster, CM, "default", "orphan");
  assert.ok(await second.cluster.find(CM, "default", "child"), "the garbage collector did not take the child for an orphan");
  await second.cluster.delete(CM, "default", "owner");
  await waitForGone(second.cluster, CM, "default", "child");
  assert.ok((await second.cluster.get(NAMESPACE, undefined, "doomed")).metadata.deletionTimestamp, "still terminating: its content is held");
  await second.cluster.patch(CM, "doomed", "held", { metadata: { finalizers: null } }, "merge");
  await waitForGone(second.cluster, NAMESPACE, undefined, "doomed");
});

/** `npm run sim -- --state DIR` as a child process; resolves with its URL once ready. */
async function simProcess(dir: string): Promise<{ url: string; kill(): Promise<void> }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "main.ts"), "--state", dir, "--port", "0", "--kubeconfig", join(dir, "kubeconfig"), "--nodes", "1", "--log-format", "json"], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "sim ready") resolve(entry.url ?? "");
    });
    child.once("exit", (code) => reject(new Error(`sim exited with ${String(code)}`)));
  });
  return {
    url,
    async kill(): Promise<void> {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

test("a crash (SIGKILL, no stop) loses at most the flush window, and a torn last line is dropped, not fatal", async (t) => {
  const dir = stateDir(t);
  const child = await simProcess(dir);
  t.after(() => child.kill());
  await assert.rejects(startSim({ stateDir: dir, controllers: false }), StateBusyError, "one process owns a state folder");
  for (const name of ["c1", "c2", "c3"]) {
    const response = await fetch(`${child.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(configMap(name)) });
    assert.equal(response.status, 201);
  }
  // Killed only once the journal holds the three writes: what a crash after the flush must keep.
  const journal = (): string => (existsSync(join(dir, "log.jsonl")) ? readFileSync(join(dir, "log.jsonl"), "utf8") : "");
  await waitFor("the three writes in the journal (those written)", () => ["c1", "c2", "c3"].filter((name) => journal().includes(`"name":"${name}"`)), (written) => written.length === 3);
  await child.kill();
  appendFileSync(join(dir, "log.jsonl"), '{"rv":999999,"type":"ADDED","resource":"/configmaps","obj');

  const warnings: string[] = [];
  let sim: RunningSim | undefined;
  try {
    sim = await startSim({ stateDir: dir, controllers: false, log: (level, msg) => void (level === "warn" && warnings.push(msg)) });
    for (const name of ["c1", "c2", "c3"]) assert.ok(await sim.cluster.find(CM, "default", name), `${name} survived the crash`);
    assert.ok(sim.cluster.store.resourceVersion < 999999, "the torn line was not applied");
    assert.match(warnings.join("\n"), /dropped 1 unreadable line/);
    assert.equal(readFileSync(join(dir, "log.jsonl"), "utf8"), "", "folded into a fresh snapshot at start");
  } finally {
    await sim?.stop();
  }
});
