import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject, Watch } from "../../protocol/index.ts";
import { cacheId, type Cache } from "./cache.ts";
import { SelectedView, servingCacheId } from "./sharing.ts";

const pods = (extra: Partial<Watch> = {}): Watch => ({ apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "self" }, ...extra });

test("a label-selected watch is served by its kind's unfiltered cache when the manifest has one", () => {
  const all = pods();
  const sedna = pods({ labelSelector: "federatedlearningjob.sedna.io/uid", mapping: { by: "owner", owner: { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" } } });
  const byField = pods({ fieldSelector: "spec.nodeName=n1" });
  assert.equal(servingCacheId(sedna, [all, sedna]), cacheId(all));
  assert.equal(servingCacheId(sedna, [sedna]), cacheId(sedna), "no unfiltered cache of the kind: its own");
  assert.equal(servingCacheId(byField, [all, byField]), cacheId(byField), "a field selector is the API server's to apply");
  assert.equal(servingCacheId(all, [all, sedna]), cacheId(all));
  const service = { ...all, kind: "Service", resource: "services" };
  assert.equal(servingCacheId(sedna, [service, sedna]), cacheId(sedna), "another kind's unfiltered cache does not serve it");
});

test("a selected view holds only what its selector matches, through every read", () => {
  const pod = (name: string, labels: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "ns", labels, ownerReferences: [{ apiVersion: "x/v1", kind: "Job", name: "j", uid: "j1", controller: true }] } }) as KubeObject;
  const objects = [pod("mine", { owned: "yes" }), pod("other", { app: "web" })];
  const cache = {
    namespaced: true,
    synced: true,
    get: (_ns: string | undefined, name: string) => objects.find((o) => o.metadata.name === name),
    list: () => objects,
    ownedBy: () => objects,
    withField: () => objects,
    withLabel: () => objects,
  } as unknown as Cache;
  const view = new SelectedView(cache, "owned=yes");
  const names = (list: KubeObject[]): (string | undefined)[] => list.map((o) => o.metadata.name);
  assert.deepEqual(names(view.list()), ["mine"]);
  assert.deepEqual(names(view.ownedBy("j1")), ["mine"]);
  assert.deepEqual(names(view.withField("spec.nodeName", "n1")), ["mine"]);
  assert.deepEqual(names(view.withLabel("owned", "yes")), ["mine"]);
  assert.equal(view.get("ns", "other"), undefined);
  assert.equal(view.get("ns", "mine")?.metadata.name, "mine");
  assert.ok(view.synced && view.namespaced);
});
