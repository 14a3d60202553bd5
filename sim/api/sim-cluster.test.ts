import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { SimCluster } from "./sim-cluster.ts";
import { apiError } from "../../test/support/api-error.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const CM = { apiVersion: "v1", kind: "ConfigMap" };
const POD = { apiVersion: "v1", kind: "Pod" };
const DEPLOY = { apiVersion: "apps/v1", kind: "Deployment" };

function pod(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] }, ...extra } as KubeObject;
}

function deployment(name: string, replicas = 1): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "busybox" }] } } },
  } as KubeObject;
}


test("create stamps uid, creationTimestamp and one global increasing resourceVersion; generateName makes a name", async () => {
  const cluster = new SimCluster();
  const a = await cluster.create({ ...pod(""), metadata: { generateName: "web-", namespace: "default" } } as KubeObject);
  const b = await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b", namespace: "default" } } as KubeObject);
  assert.match(a.metadata.name ?? "", /^web-[a-z0-9]{5}$/);
  assert.match(a.metadata.uid ?? "", /^[0-9a-f-]{36}$/);
  assert.ok(a.metadata.creationTimestamp);
  assert.ok(Number(b.metadata.resourceVersion) > Number(a.metadata.resourceVersion), "one counter across kinds");
  assert.equal((await apiError(cluster.create(b))).code, 409, "AlreadyExists");
  assert.equal((await apiError(cluster.create({ ...b, metadata: { name: "Bad_Name", namespace: "default" } } as KubeObject))).code, 422);
  assert.equal((await apiError(cluster.create({ ...b, metadata: { name: "x", namespace: "nope" } } as KubeObject))).code, 404, "the namespace must exist");
});

test("optimistic concurrency: an update with a stale resourceVersion is a 409 Conflict", async () => {
  const cluster = new SimCluster();
  const first = await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" }, data: { v: "1" } } as KubeObject);
  await cluster.update({ ...first, data: { v: "2" } } as KubeObject);
  const error = await apiError(cluster.update({ ...first, data: { v: "3" } } as KubeObject));
  assert.equal(error.code, 409);
  assert.equal(error.reason, "Conflict");
  assert.deepEqual(((await cluster.get(CM, "default", "c")) as Obj).data, { v: "2" });
});

test("generation moves on spec changes only, and when deletion starts", async () => {
  const cluster = new SimCluster();
  const created = await cluster.create({ ...deployment("d"), metadata: { name: "d", namespace: "default", finalizers: ["example.com/hold"] } } as KubeObject);
  assert.equal(created.metadata.generation, 1);
  const labelled = await cluster.patch(DEPLOY, "default", "d", { metadata: { labels: { x: "y" } } }, "merge");
  assert.equal(labelled.metadata.generation, 1, "metadata changes keep generation");
  const status = await cluster.patch(DEPLOY, "default", "d", { status: { replicas: 5 } }, "merge", { subresource: "status" });
  assert.equal(status.metadata.generation, 1, "status changes keep generation");
  const scaled = await cluster.patch(DEPLOY, "default", "d", { spec: { replicas: 3 } }, "merge");
  assert.equal(scaled.metadata.generation, 2);
  const deleting = await cluster.delete(DEPLOY, "default", "d");
  assert.ok(deleting.metadata.deletionTimestamp);
  assert.equal(deleting.metadata.generation, 3, "setting deletionTimestamp bumps generation");
});

test("status subresource: the main resource ignores status, /status ignores everything else", async () => {
  const cluster = new SimCluster();
  await cluster.create(deployment("s"));
  await cluster.patch(DEPLOY, "default", "s", { status: { replicas: 7 }, spec: { replicas: 4 } }, "merge", { subresource: "status" });
  let current = (await cluster.get(DEPLOY, "default", "s")) as Obj;
  assert.equal(current.status?.replicas, 7);
  assert.equal(current.spec.replicas, 1, "spec is ignored through /status");
  await cluster.patch(DEPLOY, "default", "s", { status: { replicas: 9 } }, "merge");
  current = (await cluster.get(DEPLOY, "default", "s")) as Obj;
  assert.equal(current.status?.replicas, 7, "status is ignored through the main resource");
});

test("JSON, merge and strategic merge patches", async () => {
  const cluster = new SimCluster();
  await cluster.create(pod("p", { metadata: { name: "p", namespace: "default", labels: { a: "1" } } }));
  await cluster.patch(POD, "default", "p", [{ op: "add", path: "/metadata/labels/b", value: "2" }], "json");
  await cluster.patch(POD, "default", "p", { metadata: { labels: { a: null } } }, "merge");
  // Strategic merge keys containers by name: the image changes, the container is not replaced.
  const patched = await cluster.patch(POD, "default", "p", { spec: { containers: [{ name: "c", image: "busybox:2" }] } }, "strategic");
  assert.deepEqual(patched.metadata.labels, { b: "2" });
  assert.deepEqual((patched as Obj).spec.containers.map((c: Obj) => `${c.name}=${c.image}`), ["c=busybox:2"]);
  assert.equal((await apiError(cluster.patch(POD, "default", "p", [{ op: "test", path: "/metadata/name", value: "q" }], "json"))).code, 422);
});

test("label selectors (equality and set-based) and field selectors", async () => {
  const cluster = new SimCluster();
  await cluster.create(pod("a", { metadata: { name: "a", namespace: "default", labels: { tier: "web", env: "prod" } } }));
  await cluster.create(pod("b", { metadata: { name: "b", namespace: "default", labels: { tier: "db", env: "prod" } } }));
  await cluster.create(pod("c", { metadata: { name: "c", namespace: "default", labels: { tier: "web" } }, spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] } }));
  const names = async (labelSelector?: string, fieldSelector?: string): Promise<string[]> =>
    (await cluster.list(POD, { namespace: "default", ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) })).items.map((p) => p.metadata.name ?? "").sort();
  assert.deepEqual(await names("tier=web"), ["a", "c"]);
  assert.deepEqual(await names("tier!=web"), ["b"]);
  assert.deepEqual(await names("tier in (web,db),env"), ["a", "b"]);
  assert.deepEqual(await names("!env"), ["c"]);
  assert.deepEqual(await names("env notin (prod)"), ["c"]);
  assert.deepEqual(await names(undefined, "spec.nodeName=n1"), ["c"]);
  assert.deepEqual(await names(undefined, "metadata.name!=a,status.phase=Pending"), ["b", "c"]);
  assert.equal((await apiError(cluster.list(POD, { fieldSelector: "spec.unknown=x" }))).code, 400);
});

test("finalizers hold a deletion until removed; graceful pod deletion waits for the kubelet", async () => {
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "f", namespace: "default", finalizers: ["example.com/hold"] } } as KubeObject);
  const held = await cluster.delete(CM, "default", "f");
  assert.ok(held.metadata.deletionTimestamp);
  assert.ok(await cluster.find(CM, "default", "f"), "still there while finalized");
  await cluster.patch(CM, "default", "f", { metadata: { finalizers: [] } }, "merge");
  assert.equal(await cluster.find(CM, "default", "f"), undefined, "removed with its last finalizer");

  await cluster.create(pod("g", { spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] } }));
  const terminating = await cluster.delete(POD, "default", "g", { gracePeriodSeconds: 30 });
  assert.equal(terminating.metadata.deletionGracePeriodSeconds, 30);
  assert.ok(await cluster.find(POD, "default", "g"), "a bound pod stays until the kubelet confirms");
  await cluster.delete(POD, "default", "g", { gracePeriodSeconds: 0 });
  assert.equal(await cluster.find(POD, "default", "g"), undefined);
  await cluster.create(pod("unbound"));
  await cluster.delete(POD, "default", "unbound");
  assert.equal(await cluster.find(POD, "default", "unbound"), undefined, "an unscheduled pod goes at once");
});

test("pods get the default not-ready/unreachable tolerations of 300 s", async () => {
  const cluster = new SimCluster();
  const created = (await cluster.create(pod("t"))) as Obj;
  const keys = created.spec.tolerations.map((t: Obj) => `${t.key}:${t.effect}:${t.tolerationSeconds}`).sort();
  assert.deepEqual(keys, ["node.kubernetes.io/not-ready:NoExecute:300", "node.kubernetes.io/unreachable:NoExecute:300"]);
});

test("binding sets nodeName once; a second binding conflicts", async () => {
  const cluster = new SimCluster();
  await cluster.create(pod("b"));
  await cluster.bind("default", "b", "n1");
  assert.equal(((await cluster.get(POD, "default", "b")) as Obj).spec.nodeName, "n1");
  const again = await apiError(cluster.bind("default", "b", "n2"));
  assert.equal(again.code, 409);
  assert.equal(again.message, 'Operation cannot be fulfilled on pods/binding "b": pod b is already assigned to node "n1"', "kube-apiserver's BindingREST words it so");
  assert.equal(((await cluster.get(POD, "default", "b")) as Obj).spec.nodeName, "n1", "the first binding stands");
});

test("watch delivers committed changes in resourceVersion order, with the old object on MODIFIED", async () => {
  const cluster = new SimCluster();
  const events: string[] = [];
  const stop = cluster.watch(CM, (e) => events.push(`${e.type} ${e.object.metadata.name ?? ""} ${e.oldObject ? "old" : ""}`.trim()));
  await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "w", namespace: "default" } } as KubeObject);
  await cluster.patch(CM, "default", "w", { data: { a: "1" } }, "merge");
  await cluster.delete(CM, "default", "w");
  stop();
  await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after", namespace: "default" } } as KubeObject);
  assert.deepEqual(events, ["ADDED w", "MODIFIED w old", "DELETED w old"]);
});
