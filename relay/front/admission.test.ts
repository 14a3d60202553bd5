import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest, StatusError, WebhookSpec, type AdmissionReviewResponse } from "../../protocol/index.ts";
import { Admission } from "./admission.ts";

/** Admission whose Worker answers every review (allowed, with a warning marker) and counts the calls. */
function admission(spec: WebhookSpec): { admission: Admission; calls: () => number } {
  let calls = 0;
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], webhooks: [spec] }] });
  const worker = {
    admission: (_name: string, review: unknown): Promise<AdmissionReviewResponse> => {
      calls += 1;
      const uid = (review as { request: { uid: string } }).request.uid;
      return Promise.resolve({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid, allowed: true, warnings: ["from the Worker"] } });
    },
  };
  return { admission: new Admission({ manifests: { manifest }, related: () => undefined, worker, log: () => undefined }), calls: () => calls };
}

function review(object: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid: "u1", kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, operation: "CREATE", namespace: "default", name: "p", object, userInfo: { username: "u" } },
  });
}

test("onlyWhen: a request holding no value at any of the paths is allowed by the relay without calling the Worker", async () => {
  const spec = WebhookSpec.parse({ name: "pods", type: "mutating", rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], failurePolicy: "Ignore", onlyWhen: ["object.spec.nodeName"] });
  const { admission: webhooks, calls } = admission(spec);
  const unbound = await webhooks.review("pods", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "" } }));
  assert.deepEqual(unbound, { status: 200, body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "u1", allowed: true } } });
  assert.equal(calls(), 0);
  const bound = await webhooks.review("pods", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "edge-1" } }));
  assert.equal(calls(), 1, "a pod created bound is reviewed by the Worker");
  assert.deepEqual((bound.body as { response: { warnings: string[] } }).response.warnings, ["from the Worker"]);
});


test("a review nested 100,000 deep is a 400 naming the field, before it is parsed or forwarded (issue 28, finding 7f)", async () => {
  const spec = WebhookSpec.parse({ name: "pods", type: "mutating", rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], failurePolicy: "Fail" });
  const { admission: webhooks, calls } = admission(spec);
  const depth = 100_000;
  const body = review({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "edge-1" } }).replace('"spec":{"nodeName":"edge-1"}', `"spec":${"[".repeat(depth)}${"]".repeat(depth)}`);
  const answer = await webhooks.review("pods", body);
  assert.equal(answer.status, 400);
  const error = (answer.body as { error: { code: string; path: string } }).error;
  assert.equal(error.code, "too_deep");
  assert.match(error.path, /^request\.object\.spec(\.0)+$/);
  assert.equal(calls(), 0);
});

test("while the Worker is unreachable, a fail-closed webhook still allows the users it exempts, at once, and denies the others (issue 28, finding 7a)", async () => {
  const spec = WebhookSpec.parse({ name: "nodes", type: "validating", rules: [{ operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] }], failurePolicy: "Fail", exemptUsers: ["system:serviceaccount:kube-system:node-controller", "system:kube-controller-manager"] });
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], webhooks: [spec] }] });
  let calls = 0;
  const worker = { admission: (): Promise<AdmissionReviewResponse> => ((calls += 1), Promise.reject(new Error("worker unreachable: connect ECONNREFUSED"))) };
  const webhooks = new Admission({ manifests: { manifest }, related: () => undefined, worker, log: () => undefined });
  const update = (username: string): string =>
    JSON.stringify({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { uid: "u1", kind: { group: "", version: "v1", kind: "Node" }, resource: { group: "", version: "v1", resource: "nodes" }, operation: "UPDATE", name: "edge-1", object: { apiVersion: "v1", kind: "Node", metadata: { name: "edge-1" }, spec: { taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }] } }, oldObject: { apiVersion: "v1", kind: "Node", metadata: { name: "edge-1" } }, userInfo: { username } },
    });
  const lifecycle = await webhooks.review("nodes", update("system:serviceaccount:kube-system:node-controller"));
  assert.equal((lifecycle.body as AdmissionReviewResponse).response.allowed, true);
  assert.equal(calls, 0, "not even tried: the answer does not depend on the Worker");
  const other = await webhooks.review("nodes", update("kubernetes-admin"));
  assert.equal((other.body as AdmissionReviewResponse).response.allowed, false, "fail closed for everyone else");
  assert.equal(calls, 1);
});

test("a webhook declared decidedAt: relay is decided by its review code at the relay, without the Worker, even while the Worker is unreachable (ADR 0034)", async () => {
  const spec = WebhookSpec.parse({ name: "nodes", type: "validating", rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], failurePolicy: "Fail", decidedAt: "relay" });
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], webhooks: [spec] }] });
  let calls = 0;
  const worker = { admission: (): Promise<AdmissionReviewResponse> => ((calls += 1), Promise.reject(new Error("never called"))) };
  const decided = new Map([["nodes", (request: { uid: string; object?: unknown }) => ({ uid: "overwritten", allowed: (request.object as { metadata: { name: string } }).metadata.name !== "bad", status: { code: 400, message: "named bad" } })]]);
  const webhooks = new Admission({ manifests: { manifest }, related: () => undefined, worker, log: () => undefined, decided, workerUp: () => false });
  const good = await webhooks.review("nodes", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "good" } }));
  const bad = await webhooks.review("nodes", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "bad" } }));
  assert.equal((good.body as AdmissionReviewResponse).response.allowed, true);
  assert.equal((good.body as AdmissionReviewResponse).response.uid, "u1", "the request's uid, whatever the review said");
  assert.equal((bad.body as AdmissionReviewResponse).response.allowed, false);
  assert.equal((bad.body as AdmissionReviewResponse).response.status?.message, "named bad");
  assert.equal(calls, 0, "the Worker is never called");
});

test("a relay-decided webhook whose code this relay lacks is forwarded to the Worker; a review that throws is answered per its failurePolicy", async () => {
  const spec = WebhookSpec.parse({ name: "pods", type: "mutating", rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], failurePolicy: "Ignore", decidedAt: "relay" });
  const { admission: lacking, calls } = admission(spec);
  const forwarded = await lacking.review("pods", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }));
  assert.equal(calls(), 1);
  assert.deepEqual((forwarded.body as AdmissionReviewResponse).response.warnings, ["from the Worker"]);
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], webhooks: [spec] }] });
  const throwing = new Map([["pods", (): never => {
    throw new Error("boom");
  }]]);
  const webhooks = new Admission({ manifests: { manifest }, related: () => undefined, worker: { admission: () => Promise.reject(new Error("never")) }, log: () => undefined, decided: throwing });
  const answer = (await webhooks.review("pods", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }))).body as AdmissionReviewResponse;
  assert.equal(answer.response.allowed, true, "Ignore: allowed");
  assert.match(answer.response.warnings?.[0] ?? "", /its review failed: boom/);
});

test("while the Worker is known unreachable, a forwarded fail-closed webhook waits a second at most and says the Worker is unreachable", async () => {
  const spec = WebhookSpec.parse({ name: "jobs", type: "validating", rules: [{ operations: ["CREATE"], apiGroups: ["x.dev"], apiVersions: ["v1"], resources: ["jobs"] }], failurePolicy: "Fail", timeoutSeconds: 10 });
  const manifest = Manifest.parse({ version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], webhooks: [spec] }] });
  const timeouts: number[] = [];
  const worker = {
    admission: (_name: string, _review: unknown, timeoutMs: number): Promise<AdmissionReviewResponse> => {
      timeouts.push(timeoutMs);
      return Promise.reject(new StatusError(0, "Unreachable", "worker unreachable: headers timeout"));
    },
  };
  let up = true;
  const webhooks = new Admission({ manifests: { manifest }, related: () => undefined, worker, log: () => undefined, workerUp: () => up });
  await webhooks.review("jobs", review({ apiVersion: "x.dev/v1", kind: "Job", metadata: { name: "j" } }));
  up = false;
  const answer = (await webhooks.review("jobs", review({ apiVersion: "x.dev/v1", kind: "Job", metadata: { name: "j" } }))).body as AdmissionReviewResponse;
  assert.deepEqual(timeouts, [10_000, 1_000]);
  assert.equal(answer.response.allowed, false);
  assert.match(answer.response.status?.message ?? "", /the edgeloop Worker is unreachable from the relay .*failurePolicy Fail until it answers again/);
});
