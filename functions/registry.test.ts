import assert from "node:assert/strict";
import { test } from "node:test";
import type { HttpApi, SnapshotController } from "./kit/controller.ts";
import { createRegistry } from "./registry.ts";

const parent = { apiVersion: "v1", kind: "ConfigMap" };

function controller(name: string, apis: readonly HttpApi[] = []): SnapshotController {
  return { name, delivery: "snapshot", parent, watches: [{ ...parent, resource: "configmaps", namespaced: true, mapping: { by: "self" } }], permissions: [{ group: "", resource: "configmaps", access: ["read"] }], apis, reconcile: () => ({ actions: [] }) };
}

function api(name: string, pathPrefix: string): HttpApi {
  return { spec: { name, pathPrefix }, handle: () => ({ status: 200, body: null }) };
}

test("controllers, webhooks and APIs are found by name and listed in the manifest", () => {
  const registry = createRegistry([controller("a", [api("replicas", "/v1alpha1/replicas")])]);
  assert.equal(registry.controller("a")?.name, "a");
  assert.equal(registry.api("replicas")?.spec.pathPrefix, "/v1alpha1/replicas");
  assert.equal(registry.api("nope"), undefined);
  assert.deepEqual(registry.manifest.controllers[0]?.apis.map((a) => a.name), ["replicas"]);
});

test("duplicate names and overlapping API paths are refused at start", () => {
  assert.throws(() => createRegistry([controller("a"), controller("a")]), /two controllers are named a/);
  assert.throws(() => createRegistry([controller("a", [api("x", "/v1/x")]), controller("b", [api("x", "/v1/y")])]), /two APIs are named x/);
  assert.throws(() => createRegistry([controller("a", [api("x", "/v1/x")]), controller("b", [api("y", "/v1/x/sub")])]), /overlapping paths/);
  assert.throws(() => createRegistry([controller("a", [api("x", "/admission")])]), /serves admission/);
  assert.doesNotThrow(() => createRegistry([controller("a", [api("x", "/v1/x")]), controller("b", [api("y", "/v1/xy")])]));
});

test("a webhook or API may relate only kinds its controller watches without selectors, narrowed", () => {
  const relating: HttpApi = { ...api("x", "/v1/x"), spec: { name: "x", pathPrefix: "/v1/x", related: [{ apiVersion: "v1", kind: "Pod", sameNamespace: true }] } };
  assert.throws(() => createRegistry([controller("a", [relating])]), /relates Pod.v1, which the controller does not watch/);
  const ok: HttpApi = { ...api("y", "/v1/y"), spec: { name: "y", pathPrefix: "/v1/y", related: [{ ...parent, sameNamespace: true }] } };
  assert.doesNotThrow(() => createRegistry([controller("a", [ok])]));
  const whole: HttpApi = { ...api("z", "/v1/z"), spec: { name: "z", pathPrefix: "/v1/z", related: [parent] } };
  assert.throws(() => createRegistry([controller("a", [whole])]), /API z: related\.0: say how the related objects are narrowed/);
  const through: HttpApi = { ...api("w", "/v1/w"), spec: { name: "w", pathPrefix: "/v1/w", related: [{ ...parent, ownerOf: { kind: { apiVersion: "v1", kind: "Pod" }, namedBy: ["query.pod"] } }] } };
  assert.throws(() => createRegistry([controller("a", [through])]), /narrows ConfigMap.v1 through Pod.v1, which the controller does not watch/);
  const sharing: HttpApi = { ...api("s", "/v1/s"), spec: { name: "s", pathPrefix: "/v1/s", related: [{ ...parent, sharingLabels: { namedBy: ["query.name"], labels: ["app"] } }] } };
  assert.doesNotThrow(() => createRegistry([controller("a", [sharing])]), "sharing labels of its own kind");
});

test("a webhook's forwardWhen may find objects only of kinds its controller watches without selectors", () => {
  const gated = (kind: string): SnapshotController => ({
    ...controller("a"),
    webhooks: [
      {
        spec: { name: "pods", type: "mutating", rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], failurePolicy: "Ignore", forwardWhen: [{ found: { apiVersion: "v1", kind, namedBy: ["object.spec.configMap"] } }] },
        review: (request) => ({ uid: request.uid, allowed: true }),
      },
    ],
  });
  assert.throws(() => createRegistry([gated("Secret")]), /pods \(forwardWhen\) of controller a relates Secret.v1, which the controller does not watch/);
  assert.doesNotThrow(() => createRegistry([gated("ConfigMap")]));
});

test("narrowing a cluster-scoped kind by namespace is refused; by name or selector it is not", () => {
  const node = { apiVersion: "v1", kind: "Node" };
  const withNodes = (related: HttpApi["spec"]["related"]): SnapshotController => ({
    ...controller("a", [{ ...api("n", "/v1/n"), spec: { name: "n", pathPrefix: "/v1/n", related } }]),
    watches: [...controller("a").watches, { ...node, resource: "nodes", namespaced: false, mapping: { by: "field", path: "metadata.name" } }],
    permissions: [{ group: "", resource: "configmaps", access: ["read"] }, { group: "", resource: "nodes", access: ["read"] }],
  });
  assert.throws(() => createRegistry([withNodes([{ ...node, sameNamespace: true }])]), /narrows Node.v1 by namespace, but it is cluster-scoped/);
  assert.doesNotThrow(() => createRegistry([withNodes([{ ...node, namedBy: ["query.node"] }])]));
  assert.doesNotThrow(() => createRegistry([withNodes([{ ...node, selector: { matchLabels: { edge: "true" } } }])]));
});

test("a watched kind without a declared read permission is refused; the manifest carries the permissions", () => {
  assert.throws(() => createRegistry([{ ...controller("a"), permissions: [] }]), /watches configmaps \(v1\) but declares no read permission/);
  assert.deepEqual(createRegistry([controller("a")]).manifest.controllers[0]?.permissions, [{ group: "", resource: "configmaps", access: ["read"] }]);
});
