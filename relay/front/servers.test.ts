import assert from "node:assert/strict";
import { test } from "node:test";
import { WebhookSpec } from "../../protocol/index.ts";
import type { RelayEngine } from "../engine.ts";
import { admit, startApiServer } from "./servers.ts";

/** An engine whose Worker answers every review (allowed, with a patch marker) and counts the calls. */
function engine(spec: WebhookSpec): { engine: RelayEngine; calls: () => number } {
  let calls = 0;
  const fake = {
    manifest: { version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], webhooks: [spec], apis: [], permissions: [], related: [] }] },
    relatedCaches: () => undefined,
    worker: {
      admission: (_name: string, review: { request: { uid: string } }) => {
        calls += 1;
        return Promise.resolve({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true, warnings: ["from the Worker"] } });
      },
    },
  };
  return { engine: fake as unknown as RelayEngine, calls: () => calls };
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
  const { engine: relay, calls } = engine(spec);
  const log = (): void => undefined;
  const unbound = await admit(relay, "pods", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "" } }), log);
  assert.deepEqual(unbound, { status: 200, body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "u1", allowed: true } } });
  assert.equal(calls(), 0);
  const bound = await admit(relay, "pods", review({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "edge-1" } }), log);
  assert.equal(calls(), 1, "a pod created bound is reviewed by the Worker");
  assert.deepEqual((bound.body as { response: { warnings: string[] } }).response.warnings, ["from the Worker"]);
});

test("a body over the limit is answered 413 (read and dropped), not with a reset", async () => {
  const api = { name: "a", pathPrefix: "/v1/a", timeoutSeconds: 5, related: [] };
  const fake = { manifest: { version: "v1", controllers: [{ name: "c", delivery: "snapshot", watches: [], webhooks: [], apis: [api], permissions: [], related: [] }] }, relatedCaches: () => undefined };
  const server = await startApiServer(fake as unknown as RelayEngine, 0, "127.0.0.1", () => undefined);
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/a`, { method: "POST", body: new Uint8Array(8 * 1024 * 1024 + 1) });
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, "too_large");
  } finally {
    await server.close();
  }
});
