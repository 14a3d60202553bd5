import assert from "node:assert/strict";
import { test } from "node:test";
import { SimCluster } from "../api/sim-cluster.ts";
import { serviceAccountController } from "./serviceaccounts.ts";

const SA = { apiVersion: "v1", kind: "ServiceAccount" };

/** Resolves once `check` holds, failing after 2 s (the controller works off a queue). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail("not within 2 s");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test("every namespace gets a default ServiceAccount, existing ones at start and new ones when made", async () => {
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "before" } });
  const controller = serviceAccountController();
  controller.start(cluster);
  try {
    await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "after" } });
    for (const ns of ["default", "before", "after"]) await eventually(async () => (await cluster.find(SA, ns, "default")) !== undefined);
    const account = await cluster.get(SA, "after", "default");
    assert.deepEqual(Object.keys(account).sort(), ["apiVersion", "kind", "metadata"]);
  } finally {
    await controller.stop();
  }
});

test("a deleted default ServiceAccount is made again; none in a terminating namespace", async () => {
  const cluster = new SimCluster();
  const controller = serviceAccountController();
  controller.start(cluster);
  try {
    await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "app" } });
    await eventually(async () => (await cluster.find(SA, "app", "default")) !== undefined);
    const first = await cluster.get(SA, "app", "default");
    await cluster.delete(SA, "app", "default");
    await eventually(async () => {
      const again = await cluster.find(SA, "app", "default");
      return again !== undefined && again.metadata.uid !== first.metadata.uid;
    });
    await cluster.delete({ apiVersion: "v1", kind: "Namespace" }, undefined, "app");
    await cluster.delete(SA, "app", "default");
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await cluster.find(SA, "app", "default"), undefined);
  } finally {
    await controller.stop();
  }
});
