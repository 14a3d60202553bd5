import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { SimCluster } from "./sim-cluster.ts";
import { apiError } from "../../test/support/api-error.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const NS = { apiVersion: "v1", kind: "Namespace" };
const CM = { apiVersion: "v1", kind: "ConfigMap" };


const configMap = (name: string, namespace: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } }) as KubeObject;

test("a namespace gets the kubernetes finalizer; deleting it only starts its termination", async () => {
  const cluster = new SimCluster();
  const created = await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" }, spec: { finalizers: ["example.com/x"] } } as KubeObject);
  assert.deepEqual((created as Obj).spec.finalizers, ["example.com/x", "kubernetes"]);
  assert.equal((created as Obj).status.phase, "Active");
  const deleted = await cluster.delete(NS, undefined, "demo");
  assert.ok(deleted.metadata.deletionTimestamp);
  assert.equal((deleted as Obj).status.phase, "Terminating");
  assert.equal(deleted.metadata.finalizers, undefined, "spec.finalizers, not metadata.finalizers");
  assert.equal((await cluster.delete(NS, undefined, "demo")).metadata.resourceVersion, deleted.metadata.resourceVersion, "a second delete waits, changing nothing");
  assert.ok(await cluster.find(NS, undefined, "demo"));
});

test("NamespaceLifecycle: no content in a terminating or missing namespace, no deleting default, kube-system, kube-public", async () => {
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } } as KubeObject);
  await cluster.create(configMap("kept", "demo"));
  await cluster.delete(NS, undefined, "demo");
  const refused = await apiError(cluster.create(configMap("late", "demo")));
  assert.equal(refused.code, 403);
  assert.equal(refused.reason, "Forbidden");
  assert.equal(refused.message, 'configmaps "late" is forbidden: unable to create new content in namespace demo because it is being terminated');
  assert.deepEqual(refused.details, { name: "late", group: "", kind: "configmaps", causes: [{ reason: "NamespaceTerminating", message: "namespace demo is being terminated", field: "metadata.namespace" }] });
  const generated = await apiError(cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "late-", namespace: "demo" } } as KubeObject));
  assert.match(generated.message, /^configmaps "late-" is forbidden/, "before name generation, the prefix names the object");
  await cluster.patch(CM, "demo", "kept", { data: { still: "writable" } }, "merge");
  const missing = await apiError(cluster.create(configMap("x", "nowhere")));
  assert.equal(missing.code, 404);
  assert.equal(missing.message, 'namespaces "nowhere" not found');
  for (const name of ["default", "kube-system", "kube-public"]) {
    const immortal = await apiError(cluster.delete(NS, undefined, name));
    assert.equal(immortal.code, 403);
    assert.equal(immortal.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
  }
});

test("only finalize changes spec.finalizers; emptied, the terminating namespace is gone", async () => {
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } } as KubeObject);
  const patched = await cluster.patch(NS, undefined, "demo", { metadata: { labels: { a: "b" } }, spec: { finalizers: [] } }, "merge");
  assert.deepEqual((patched as Obj).spec.finalizers, ["kubernetes"], "an update keeps spec.finalizers");
  assert.equal(patched.metadata.labels?.a, "b");
  const active = await cluster.update({ ...patched, spec: { finalizers: [] } } as KubeObject, { subresource: "finalize" });
  assert.deepEqual((active as Obj).spec.finalizers, [], "finalize on an active namespace just empties them");
  assert.ok(await cluster.find(NS, undefined, "demo"));
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "gone" } } as KubeObject);
  const terminating = await cluster.delete(NS, undefined, "gone");
  await cluster.update({ ...terminating, spec: { finalizers: [] } } as KubeObject, { subresource: "finalize" });
  assert.equal(await cluster.find(NS, undefined, "gone"), undefined);
});

test("default holds service/kubernetes: ClusterIP 10.96.0.1, 443 named https", async () => {
  const cluster = new SimCluster();
  const service = (await cluster.get({ apiVersion: "v1", kind: "Service" }, "default", "kubernetes")) as Obj;
  assert.equal(service.spec.clusterIP, "10.96.0.1");
  assert.deepEqual(service.spec.ports.map((p: Obj) => [p.name, p.port, p.protocol]), [["https", 443, "TCP"]]);
  assert.equal(service.spec.selector, undefined);
  const next = (await cluster.create({ apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "default" }, spec: { ports: [{ port: 80 }] } } as KubeObject)) as Obj;
  assert.notEqual(next.spec.clusterIP, "10.96.0.1");
});
