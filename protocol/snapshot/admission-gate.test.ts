import assert from "node:assert/strict";
import { test } from "node:test";
import type { z } from "zod";
import { AdmissionRequest, WebhookSpec, type KubeObject } from "../index.ts";
import { forwards } from "./admission-gate.ts";
import type { RelatedCaches } from "./caches.ts";
import { FakeCache } from "../../test/support/fake-cache.ts";

const node = (name: string, labels: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name, labels } });
const nodes = new FakeCache(false, { objects: [node("edge-1", { edge: "true" }), node("cloud", { edge: "false" })] });
const caches: RelatedCaches = (kind) => (kind.kind === "Node" ? nodes : undefined);

function spec(fields: Partial<Pick<z.input<typeof WebhookSpec>, "onlyWhen" | "forwardWhen" | "exemptUsers">>): WebhookSpec {
  return WebhookSpec.parse({ name: "pods", type: "mutating", rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], failurePolicy: "Ignore", ...fields });
}

function request(nodeName: string | undefined, annotations?: Record<string, string>): AdmissionRequest {
  const object = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", ...(annotations ? { annotations } : {}) }, spec: nodeName === undefined ? {} : { nodeName } };
  return AdmissionRequest.parse({ uid: "u1", kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, operation: "CREATE", namespace: "default", name: "p", object });
}

const EDGE_NODE = { found: { apiVersion: "v1", kind: "Node", namedBy: ["object.spec.nodeName"], selector: { matchLabels: { edge: "true" } } } };
const KEPT = { path: "object.metadata.annotations", hasKey: ["kept/a", "kept/b"] };

test("no condition: every request is forwarded", () => {
  assert.equal(forwards(spec({}), request(undefined), caches), true);
});

test("onlyWhen: forwarded only holding a value at one of the paths", () => {
  const only = spec({ onlyWhen: ["object.spec.nodeName"] });
  assert.equal(forwards(only, request(undefined), caches), false);
  assert.equal(forwards(only, request(""), caches), false);
  assert.equal(forwards(only, request("cloud"), caches), true);
});

test("forwardWhen found: forwarded only when the entry finds a cached object for the request", () => {
  const found = spec({ onlyWhen: ["object.spec.nodeName"], forwardWhen: [EDGE_NODE] });
  assert.equal(forwards(found, request("edge-1"), caches), true);
  assert.equal(forwards(found, request("cloud"), caches), false, "the named node does not match the selector");
  assert.equal(forwards(found, request("gone"), caches), false, "the named node is not cached");
});

test("forwardWhen hasKey: forwarded when the map at the path has one of the keys, whatever its value", () => {
  const either = spec({ onlyWhen: ["object.spec.nodeName"], forwardWhen: [EDGE_NODE, KEPT] });
  assert.equal(forwards(either, request("cloud", { "kept/b": "" }), caches), true);
  assert.equal(forwards(either, request("cloud", { other: "x" }), caches), false);
  assert.equal(forwards(either, request(undefined, { "kept/a": "300" }), caches), false, "onlyWhen still applies");
});

test("exemptUsers: a request by one of them is never forwarded, whatever else holds (issue 28, finding 7a)", () => {
  const exempt = spec({ exemptUsers: ["system:serviceaccount:kube-system:node-controller"] });
  const by = (username: string | undefined): AdmissionRequest => AdmissionRequest.parse({ ...request("edge-1"), ...(username === undefined ? {} : { userInfo: { username, groups: ["system:authenticated"] } }) });
  assert.equal(forwards(exempt, by("system:serviceaccount:kube-system:node-controller"), caches), false);
  assert.equal(forwards(exempt, by("system:node:edge-1"), caches), true);
  assert.equal(forwards(exempt, by(undefined), caches), true, "no user said: forwarded");
});
