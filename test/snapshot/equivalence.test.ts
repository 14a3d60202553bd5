/**
 * The kit's fake cluster gives a controller's unit tests the snapshot the relay would send:
 * for one snapshot controller of each family, the same objects (as the sim holds them after
 * the controller's own first decision, and strangers it must not see) are read once by the
 * relay's real informer caches and once by the fake cluster, and both build the same
 * ReconcileRequest. The gang scheduler is an events controller: it is sent no snapshot.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { kindKey, objectKey, type KubeObject, type ReconcileRequest, type TypeRef } from "../../protocol/index.ts";
import { reconcileRequest } from "../../protocol/snapshot/build.ts";
import { crdsOf } from "../../functions/kit/crd/generate.ts";
import type { SnapshotController } from "../../functions/kit/controller.ts";
import { FakeCluster, parseManifests } from "../../functions/kit/testing/index.ts";
import { createRegistry } from "../../functions/registry.ts";
import autonomy from "../../functions/controllers/autonomy/controller.ts";
import { EDGE_WORKER, NODE_POOL } from "../../functions/controllers/autonomy/names.ts";
import nervex from "../../functions/controllers/nervex/controller.ts";
import federatedLearning from "../../functions/controllers/sedna/federatedlearning/controller.ts";
import { Caches } from "../../relay/store/caches.ts";
import { KubeClient } from "../../relay/kube/client.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";

const NOW = new Date("2026-11-22T12:00:00Z");
const SETTINGS = { apiAddress: "edgeloop-relay.edgeloop-system:8080" };

let sim: RunningSim;
let dir: string;
let kc: KubeConfig;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-snapshot-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), controllers: false, nodes: [] });
  kc = new KubeConfig();
  kc.loadFromFile(join(dir, "kubeconfig"));
  for (const crd of crdsOf([federatedLearning, nervex])) await sim.cluster.create(crd as unknown as KubeObject);
  for (const name of ["eq", "other"]) await sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } } as KubeObject);
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Every kind a controller's snapshots read: its watches' and its related objects'. */
function kindsOf(controller: SnapshotController): TypeRef[] {
  const kinds = new Map<string, TypeRef>();
  for (const type of [...controller.watches, ...(controller.related ?? [])]) kinds.set(kindKey(type), { apiVersion: type.apiVersion, kind: type.kind });
  return [...kinds.values()];
}

/** A fake cluster holding what the sim holds of those kinds, as the sim serves it. */
async function fakeOf(controller: SnapshotController): Promise<FakeCluster> {
  const fake = new FakeCluster();
  for (const type of kindsOf(controller)) for (const item of (await sim.cluster.list(type)).items) fake.put({ ...item, apiVersion: type.apiVersion, kind: type.kind });
  return fake;
}

/** The snapshot the relay's informer caches, started on the sim for this controller's manifest, build for `key`. */
async function relaySnapshot(controller: SnapshotController, key: string): Promise<ReconcileRequest> {
  const manifest = createRegistry([controller]).manifest;
  const informers = new Caches(kc, new KubeClient(kc), { relisted: () => undefined, restarted: () => undefined, failed: () => undefined, notServed: () => undefined, served: () => undefined });
  informers.subscribe({ added: () => undefined, modified: () => undefined, deleted: () => undefined });
  try {
    await informers.ensure(manifest);
    const [entry] = manifest.controllers;
    assert.ok(entry);
    return reconcileRequest(entry, key, informers, [], NOW);
  } finally {
    await informers.stop();
  }
}

/** Both snapshots of `name`, after the fake's and the relay's caches read the same objects. */
async function bothSnapshots(controller: SnapshotController, name: string, namespace?: string): Promise<{ fake: ReconcileRequest; relay: ReconcileRequest }> {
  const fake = (await fakeOf(controller)).request(controller, { name, ...(namespace ? { namespace } : {}), now: NOW.toISOString() });
  const relay = await relaySnapshot(controller, namespace ? `${namespace}/${name}` : name);
  return { fake, relay };
}

/** Creates in the sim what the controller's first reconcile of `name` creates, as the relay would apply it. */
async function applyFirstDecision(controller: SnapshotController, name: string, namespace: string): Promise<void> {
  const request = (await fakeOf(controller)).request(controller, { name, namespace, now: NOW.toISOString() });
  const decision = controller.reconcile(request, SETTINGS);
  for (const action of decision.actions) if (action.type === "create") await sim.cluster.create(action.object);
}

function fixture(path: string): KubeObject {
  return parseManifests(readFileSync(new URL(`../../functions/controllers/${path}`, import.meta.url), "utf8"))[0] as KubeObject;
}

/** A pod that carries `labels` and the owner reference given, in `namespace`. */
function pod(namespace: string, name: string, labels: Record<string, string>, owner?: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string }, nodeName?: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace, name, labels, ...(owner ? { ownerReferences: [{ ...owner, controller: true }] } : {}) },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "busybox", env: [{ name: "SECRET_OF_ITS_OWN", value: "x" }] }] },
  } as KubeObject;
}

/**
 * The snapshot with each kind's objects in name order: the order is no part of what is
 * sent (the relay's follows its informers' arrivals, the fake's its store's).
 */
function inOrder(request: ReconcileRequest): ReconcileRequest {
  const sorted = (part: Record<string, KubeObject[]>): Record<string, KubeObject[]> => Object.fromEntries(Object.entries(part).map(([kind, objects]) => [kind, [...objects].sort((a, b) => objectKey(a.metadata).localeCompare(objectKey(b.metadata)))]));
  return { ...request, children: sorted(request.children), related: sorted(request.related) };
}

/** The names of a snapshot's objects of one kind, to say what the snapshot is about. */
function names(objects: readonly KubeObject[] | undefined): string[] {
  return (objects ?? []).map((o) => o.metadata.name ?? "").sort();
}

test("sedna federated learning: children by the job's uid and its label selector, each pod cut to the declared fields, referenced models and datasets in its namespace", async () => {
  const sedna = (kind: string, namespace: string, name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: "sedna.io/v1alpha1", kind, metadata: { namespace, name }, spec }) as KubeObject;
  for (const namespace of ["eq", "other"]) {
    await sim.cluster.create(sedna("Model", namespace, "surface-defect-detection-model", { url: "/model", format: "pb" }));
    await sim.cluster.create(sedna("Dataset", namespace, "edge1-surface-defect-detection-dataset", { url: "/data/1.txt", format: "txt", nodeName: "edge1" }));
    await sim.cluster.create(sedna("Dataset", namespace, "edge2-surface-defect-detection-dataset", { url: "/data/2.txt", format: "txt", nodeName: "edge2" }));
  }
  const manifest = fixture("sedna/fixtures/federatedlearningjob_v1alpha1.yaml");
  const job = await sim.cluster.create({ ...manifest, metadata: { ...manifest.metadata, name: "fl", namespace: "eq" } });
  await applyFirstDecision(federatedLearning, "fl", "eq");
  const owner = { apiVersion: job.apiVersion, kind: job.kind, name: "fl", uid: job.metadata.uid ?? "" };
  // Strangers: an earlier job's pod under the same labels; the job's pod without its label; another namespace's.
  await sim.cluster.create(pod("eq", "fl-earlier", { "federatedlearningjob.sedna.io/uid": "an-older-job" }, { ...owner, uid: "an-older-job" }));
  await sim.cluster.create(pod("eq", "fl-unlabelled", {}, owner));
  await sim.cluster.create(pod("other", "fl-elsewhere", { "federatedlearningjob.sedna.io/uid": owner.uid }));

  const { fake, relay } = await bothSnapshots(federatedLearning, "fl", "eq");
  assert.deepEqual(inOrder(fake), inOrder(relay));
  const pods = relay.children["Pod.v1"] ?? [];
  assert.equal(pods.length, 3, "the aggregation worker and two training workers");
  assert.ok(pods.every((p) => p.metadata.ownerReferences?.[0]?.uid === owner.uid && p.metadata.labels?.["federatedlearningjob.sedna.io/uid"] !== undefined), "the job's own labelled pods only");
  assert.ok(relay.children["Pod.v1"]?.every((p) => (p["spec"] as { containers?: unknown }).containers === undefined), "only the declared fields of a pod");
  assert.deepEqual(names(relay.related["Dataset.sedna.io/v1alpha1"]), ["edge1-surface-defect-detection-dataset", "edge2-surface-defect-detection-dataset"]);
  assert.ok(relay.related["Model.sedna.io/v1alpha1"]?.every((m) => m.metadata.namespace === "eq"));
});

test("nervex: the coordinator and its Service by the job's uid, only pods carrying the NerveX label, whole", async () => {
  const manifest = fixture("nervex/fixtures/nervex-mock-nervexjob.yaml");
  const job = await sim.cluster.create({ ...manifest, metadata: { ...manifest.metadata, name: "nx", namespace: "eq" } });
  await applyFirstDecision(nervex, "nx", "eq");
  const owner = { apiVersion: job.apiVersion, kind: job.kind, name: "nx", uid: job.metadata.uid ?? "" };
  await sim.cluster.create(pod("eq", "nx-not-nervex", {}, owner));
  await sim.cluster.create(pod("eq", "nx-earlier", { "controller-name": "nervex-operator" }, { ...owner, uid: "an-older-job" }));

  const { fake, relay } = await bothSnapshots(nervex, "nx", "eq");
  assert.deepEqual(inOrder(fake), inOrder(relay));
  assert.deepEqual(names(relay.children["Pod.v1"]), ["nx-coordinator"]);
  assert.deepEqual(names(relay.children["Service.v1"]), ["nx-coordinator"]);
});

test("edge autonomy: a node's pods by spec.nodeName in every namespace, cut to the declared fields; the nodes of its pool as related", async () => {
  const node = (name: string, labels: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name, labels, annotations: { "node.openyurt.io/autonomy-duration": "100s" } } }) as KubeObject;
  await sim.cluster.create(node("edge-1", { [EDGE_WORKER]: "true", [NODE_POOL]: "hangzhou" }));
  await sim.cluster.create(node("edge-2", { [EDGE_WORKER]: "true", [NODE_POOL]: "hangzhou" }));
  await sim.cluster.create(node("edge-3", { [EDGE_WORKER]: "true", [NODE_POOL]: "beijing" }));
  await sim.cluster.create(pod("eq", "web", { app: "web" }, undefined, "edge-1"));
  await sim.cluster.create(pod("other", "db", { app: "db" }, undefined, "edge-1"));
  await sim.cluster.create(pod("eq", "away", { app: "web" }, undefined, "edge-2"));

  const { fake, relay } = await bothSnapshots(autonomy, "edge-1");
  assert.deepEqual(inOrder(fake), inOrder(relay));
  assert.deepEqual(names(relay.children["Pod.v1"]), ["db", "web"]);
  assert.ok(relay.children["Pod.v1"]?.every((p) => (p["spec"] as { containers?: unknown }).containers === undefined), "only the declared fields of a pod");
  assert.deepEqual(names(relay.related["Node.v1"]), ["edge-1", "edge-2"]);
});
