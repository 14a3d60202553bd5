import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { waitForObject } from "../../test/support/cluster-waits.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import type { Cluster } from "../contract.ts";
import { serviceAccountController } from "./serviceaccounts.ts";

const SA = { apiVersion: "v1", kind: "ServiceAccount" };

/** `cluster` as a controller sees it, counting the controller's reads of Namespaces. */
function namespaceReadsCounted(cluster: Cluster): { readonly cluster: Cluster; reads(): number } {
  let reads = 0;
  const find: Cluster["find"] = (type, namespace, name) => {
    if (type.kind === "Namespace") reads += 1;
    return cluster.find(type, namespace, name);
  };
  const view = new Proxy(cluster, {
    get: (target, property) => {
      if (property === "find") return find;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { cluster: view, reads: () => reads };
}

test("every namespace gets a default ServiceAccount, existing ones at start and new ones when made", async () => {
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "before" } });
  const controller = serviceAccountController();
  controller.start(cluster);
  try {
    await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "after" } });
    for (const ns of ["default", "before", "after"]) await waitForObject(cluster, SA, ns, "default");
    const account = await cluster.get(SA, "after", "default");
    assert.deepEqual(Object.keys(account).sort(), ["apiVersion", "kind", "metadata"]);
  } finally {
    await controller.stop();
  }
});

test("a deleted default ServiceAccount is made again; none in a terminating namespace", async () => {
  const cluster = new SimCluster();
  const seen = namespaceReadsCounted(cluster);
  const controller = serviceAccountController();
  controller.start(seen.cluster);
  try {
    await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "app" } });
    const first = await waitForObject(cluster, SA, "app", "default");
    await cluster.delete(SA, "app", "default");
    await waitForObject(cluster, SA, "app", "default", (again) => again.metadata.uid !== first.metadata.uid);
    await cluster.delete({ apiVersion: "v1", kind: "Namespace" }, undefined, "app");
    const reads = seen.reads();
    await cluster.delete(SA, "app", "default");
    // The deletion is what would make it again: once the controller has read the namespace
    // for it, stopping waits for that key to be done, and only then is the absence checked.
    await waitFor("the controller to read the namespace after the deletion (its namespace reads)", () => seen.reads(), (count) => count > reads);
    await controller.stop();
    assert.equal(await cluster.find(SA, "app", "default"), undefined);
  } finally {
    await controller.stop();
  }
});
