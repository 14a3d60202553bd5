/**
 * The namespace controller on the in-process cluster: content deleted as a user would
 * delete it (finalizers and graceful pod termination respected), status conditions saying
 * what is left, then the namespace finalized and gone.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { SimCluster } from "../../sim/index.ts";
import { namespaceController } from "../../sim/controllers/namespace.ts";
import { waitForGone } from "../support/cluster-waits.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const NS = { apiVersion: "v1", kind: "Namespace" };
const CM = { apiVersion: "v1", kind: "ConfigMap" };
const POD = { apiVersion: "v1", kind: "Pod" };

const cluster = new SimCluster();
const controller = namespaceController();
controller.start(cluster);
after(() => controller.stop());

function condition(namespace: KubeObject | undefined, type: string): Obj | undefined {
  return ((namespace as Obj | undefined)?.status?.conditions as Obj[] | undefined)?.find((c) => c.type === type);
}

test("everything in a deleted namespace goes, then the namespace; what holds it is in its conditions", async () => {
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } } as KubeObject);
  await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "plain", namespace: "demo" } } as KubeObject);
  await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "held", namespace: "demo", finalizers: ["example.com/hold"] } } as KubeObject);
  // A pod on a node terminates through its kubelet (none runs here): it keeps the namespace until it is gone.
  await cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "demo" }, spec: { nodeName: "n1", terminationGracePeriodSeconds: 30, containers: [{ name: "c", image: "nginx" }] } } as KubeObject);
  await cluster.delete(NS, undefined, "demo");

  const waiting = await waitFor("the conditions to name what remains", () => cluster.find(NS, undefined, "demo"), (ns) => condition(ns, "NamespaceFinalizersRemaining")?.status === "True");
  assert.equal(condition(waiting, "NamespaceContentRemaining")?.message, "Some resources are remaining: configmaps. has 1 resource instances, pods. has 1 resource instances");
  assert.equal(condition(waiting, "NamespaceFinalizersRemaining")?.message, "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances");
  assert.equal(condition(waiting, "NamespaceDeletionDiscoveryFailure")?.status, "False");
  assert.equal((waiting as Obj).status.phase, "Terminating");
  assert.equal(await cluster.find(CM, "demo", "plain"), undefined);
  const pod = await cluster.get(POD, "demo", "web");
  assert.equal(pod.metadata.deletionGracePeriodSeconds, 30, "graceful pod deletion, as a user's delete");

  await cluster.patch(CM, "demo", "held", { metadata: { finalizers: null } }, "merge");
  await waitFor("only the pod to remain", () => cluster.find(NS, undefined, "demo"), (ns) => condition(ns, "NamespaceFinalizersRemaining")?.status === "False");
  assert.ok(await cluster.find(NS, undefined, "demo"), "the terminating pod still holds the namespace");
  // The kubelet's part, once the grace period is over.
  await cluster.delete(POD, "demo", "web", { gracePeriodSeconds: 0 });
  await waitForGone(cluster, NS, undefined, "demo");
});

test("a namespace recreated under the same name starts empty and active", async () => {
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "again" } } as KubeObject);
  await cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "again" } } as KubeObject);
  await cluster.delete(NS, undefined, "again");
  await waitForGone(cluster, NS, undefined, "again");
  const fresh = await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "again" } } as KubeObject);
  assert.equal((fresh as Obj).status.phase, "Active");
  assert.deepEqual((await cluster.list(CM, { namespace: "again" })).items, []);
});
