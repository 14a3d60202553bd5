/** Fidelity: real client-node informers against the sim, through watch resumption, 410 Gone and relists. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from "@kubernetes/client-node";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";

let sim: RunningSim;
let dir: string;
let kc: KubeConfig;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-informer-"));
  // A small event history, so a watch that falls behind is answered 410 Gone.
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), controllers: false, historySize: 8 });
  kc = new KubeConfig();
  kc.loadFromFile(join(dir, "kubeconfig"));
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data }) as KubeObject;

test("an informer lists, watches, survives a 410 Gone by relisting, and reports deletions it missed", async () => {
  await sim.cluster.create(configMap("before"));
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, "/api/v1/namespaces/default/configmaps", () => api.listNamespacedConfigMap({ namespace: "default" }));
  const seen: string[] = [];
  const errors: unknown[] = [];
  let connects = 0;
  informer.on("add", (cm) => seen.push(`add ${cm.metadata?.name ?? ""}`));
  informer.on("update", (cm) => seen.push(`update ${cm.metadata?.name ?? ""}`));
  informer.on("delete", (cm) => seen.push(`delete ${cm.metadata?.name ?? ""}`));
  informer.on("error", (error) => errors.push(error));
  informer.on("connect", () => connects++);
  await informer.start();
  try {
    assert.deepEqual(informer.list().map((c) => c.metadata?.name), ["before"]);
    await sim.cluster.create(configMap("live"));
    await waitFor("the watch to deliver live", () => informer.get("live", "default"), (live) => live !== undefined);

    // The API server drops every watch, and more than the history holds happens before
    // the informer is back: its resourceVersion is compacted away.
    const connectsBefore = connects;
    sim.closeWatches();
    await sim.cluster.delete({ apiVersion: "v1", kind: "ConfigMap" }, "default", "before");
    for (let i = 0; i < 10; i++) await sim.cluster.create(configMap(`burst-${i}`));
    sim.cluster.store.history.compact(sim.cluster.store.resourceVersion);

    await waitFor("the relist to bring the burst (the names listed)", () => informer.list().map((c) => c.metadata?.name), (names) => names.length === 11);
    assert.ok(connects > connectsBefore, "the informer reconnected");
    assert.equal(informer.get("before", "default"), undefined, "the deletion it never saw is reported by the relist");
    assert.ok(seen.includes("delete before"));
    assert.deepEqual(errors, [], "a 410 is not an error for an informer");

    await sim.cluster.patch({ apiVersion: "v1", kind: "ConfigMap" }, "default", "live", { data: { a: "1" } }, "merge");
    await waitFor("the watch to resume after the relist (live's data)", () => informer.get("live", "default")?.data, (data) => data?.a === "1");
  } finally {
    await informer.stop();
  }
});

test("a watch resumes from a resourceVersion and is answered 410 past the history", async () => {
  const start = sim.cluster.store.resourceVersion;
  await sim.cluster.create(configMap("resume-a"));
  await sim.cluster.create(configMap("resume-b"));
  const response = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start}&timeoutSeconds=1&fieldSelector=metadata.name%3Dresume-b`);
  const lines = (await response.text()).trim().split("\n").map((l) => JSON.parse(l) as { type: string; object: KubeObject });
  assert.deepEqual(lines.map((l) => `${l.type} ${l.object.metadata.name ?? ""}`), ["ADDED resume-b"], "events after the version, filtered by the field selector");

  for (let i = 0; i < 10; i++) await sim.cluster.create(configMap(`later-${i}`));
  const gone = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start}`);
  assert.equal(gone.status, 200, "a watch answers 200 and then an ERROR event, as the API server does");
  const [event] = (await gone.text()).trim().split("\n").map((l) => JSON.parse(l) as { type: string; object: { code: number; reason: string } });
  assert.equal(event?.type, "ERROR");
  assert.equal(event?.object.code, 410);
  assert.equal(event?.object.reason, "Expired");
});

test("many concurrent watchers each get every event in order", async () => {
  const from = sim.cluster.store.resourceVersion;
  const watchers = Array.from({ length: 20 }, () => fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}&timeoutSeconds=1&labelSelector=fan%3Dout`).then((r) => r.text()));
  for (let i = 0; i < 5; i++) await sim.cluster.create({ ...configMap(`fan-${i}`), metadata: { name: `fan-${i}`, namespace: "default", labels: { fan: "out" } } } as KubeObject);
  for (const text of await Promise.all(watchers)) {
    const names = text.trim().split("\n").map((l) => (JSON.parse(l) as { object: KubeObject }).object.metadata.name);
    assert.deepEqual(names, ["fan-0", "fan-1", "fan-2", "fan-3", "fan-4"]);
  }
});
