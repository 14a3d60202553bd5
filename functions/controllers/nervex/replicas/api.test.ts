import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiSpec, RelatedObjects, type KubeObject } from "../../../../protocol/index.ts";
import type { RelatedCaches } from "../../../../protocol/snapshot/caches.ts";
import { relatedObjects } from "../../../../protocol/snapshot/related.ts";
import { FakeCache } from "../../../../test/support/fake-cache.ts";
import { replicasApi } from "./api.ts";
import { call, envelope, existing, mockJob, related, request } from "./testing/world.ts";

test("the spec parses; every related kind is narrowed; retries within 10 s are remembered", () => {
  const spec = ApiSpec.parse(replicasApi.spec);
  assert.equal(spec.name, "replicas");
  assert.equal(spec.pathPrefix, "/v1alpha1/replicas");
  assert.equal(spec.timeoutSeconds, 10);
  assert.deepEqual(spec.related.map((r) => `${r.kind}.${r.apiVersion}`), ["Pod.v1", "Pod.v1", "Service.v1", "NerveXJob.nervex.sensetime.com/v1alpha1", "AggregatorConfig.nervex.sensetime.com/v1alpha1", "Node.v1"]);
  for (const r of spec.related) assert.ok(RelatedObjects.safeParse(r).success);
  assert.deepEqual(spec.related.find((r) => r.kind === "AggregatorConfig")?.named, [{ namespace: "nervex-system", name: "aggregator-config" }]);
  assert.equal(replicasApi.retryWindowSeconds, 10);
});

test("other methods are 501 in the envelope; unknown paths 404", () => {
  for (const [method, path] of [["PUT", "/v1alpha1/replicas"], ["PATCH", "/v1alpha1/replicas"], ["GET", "/v1alpha1/replicas/failed"], ["DELETE", "/v1alpha1/replicas/failed"]] as const) {
    const answer = call(request({ method, path, body: "{}" }));
    assert.equal(answer.status, 501, `${method} ${path}`);
    assert.deepEqual(envelope(answer), { success: false, code: 1, message: `method ${method} not implemented`, data: null });
  }
  const lost = call(request({ method: "GET", path: "/v1alpha1/replicas/other" }));
  assert.equal(lost.status, 404);
  assert.equal(envelope(lost).code, 1);
});

test("hostile bodies get a 4xx in the envelope, never a throw", () => {
  const job = mockJob("job-a", "team-a");
  const world = related({ pods: [existing(job, "coordinator", "")], jobs: [job] });
  const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
  const bodies = ["null", "[]", "42", '"x"', deep, "{".repeat(70_000), '{"namespace":{"$ne":1}}', '{"__proto__":{"namespace":"team-a"},"coordinator":"job-a-coordinator"}'];
  for (const method of ["POST", "DELETE"] as const) {
    for (const body of bodies) {
      const answer = call(request({ method, body, related: world }));
      assert.equal(answer.status, 400, `${method} ${body.slice(0, 40)}`);
      assert.equal(envelope(answer).success, false);
    }
  }
  for (const body of bodies) {
    const answer = call(request({ method: "POST", path: "/v1alpha1/replicas/failed", body, related: world }));
    assert.equal(answer.status, 400, body.slice(0, 40));
  }
});

test("an unscoped GET (no namespace) carries no pods to the Worker and is a 400 naming query.namespace, however many NerveX pods the cluster holds", () => {
  const spec = ApiSpec.parse(replicasApi.spec);
  const pods = Array.from({ length: 2001 }, (_, i): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace: `ns-${i % 40}`, name: `job-collector-${i}`, labels: { "controller-name": "nervex-operator", "nervexjob-name": "job" } } }));
  const cache = new FakeCache(true, { objects: pods });
  const caches: RelatedCaches = (kind) => (kind.kind === "Pod" ? cache : undefined);
  const sent = relatedObjects(spec.related, { namespace: undefined, root: { query: {}, body: undefined } }, caches);
  assert.equal(sent["Pod.v1"]?.length ?? 0, 0, "the relay forwards no pod for a request naming no namespace");
  const answer = call(request({ method: "GET", query: {}, related: sent }));
  assert.equal(answer.status, 400);
  assert.equal(envelope(answer).message, "namespace: required (DI-engine's coordinator always sends it)");
  const scoped = relatedObjects(spec.related, { namespace: "ns-1", root: { query: { namespace: "ns-1" }, body: undefined } }, caches);
  assert.equal(scoped["Pod.v1"]?.length, 50, "a namespaced GET carries that namespace's NerveX pods only");
});
