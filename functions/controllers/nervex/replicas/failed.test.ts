import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../../protocol/index.ts";
import { call, created, deleted, envelope, existing, mockJob, related, request } from "./testing/world.ts";

const job = mockJob("job-a", "team-a");
const other = mockJob("job-b", "team-a");
const COORDINATOR = "job-a-coordinator";
const collector = existing(job, "collector", "job-a-collector-aaaaa");
const learner = existing(job, "learner", "job-a-learner-bbbbb");
const ddp = existing(job, "ddp-learner", "job-a-ddp-learner-ccccc", undefined, { aggregator: "job-a-aggregator-xxxxx", gpus: 2 });
const foreign = existing(other, "collector", "job-b-collector-eeeee");
const pods = [existing(job, "coordinator", ""), collector, learner, ddp, existing(other, "coordinator", ""), foreign];
const world = related({ pods, jobs: [job, other] });

function failed(body: unknown, id = "req-9"): ReturnType<typeof call> {
  return call(request({ method: "POST", path: "/v1alpha1/replicas/failed", body, id, related: world }));
}

function env(pod: KubeObject): Record<string, string> {
  const containers = (pod["spec"] as { containers: { env?: { name: string; value: string }[] }[] }).containers;
  return Object.fromEntries((containers[0]?.env ?? []).map((e) => [e.name, e.value]));
}

test("each named replica is deleted with its Service, then recreated under a new name with the same spec", () => {
  const answer = failed(JSON.stringify({ namespace: "team-a", coordinator: COORDINATOR, collectors: ["job-a-collector-aaaaa"], learners: ["job-a-learner-bbbbb", "job-a-ddp-learner-ccccc"] }));
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const kinds = answer.actions.map((a) => a.type);
  assert.deepEqual(kinds, ["delete", "delete", "delete", "delete", "delete", "delete", "create", "create", "create", "create", "create", "create"]);
  assert.deepEqual(deleted(answer).slice(0, 2), ["Pod/job-a-collector-aaaaa", "Service/job-a-collector-aaaaa"]);
  const [newCollector, newLearner, newDdp] = created(answer) as [KubeObject, KubeObject, KubeObject];
  assert.match(newCollector.metadata.name ?? "", /^job-a-collector-[a-z0-9]{5}$/);
  assert.notEqual(newCollector.metadata.name, "job-a-collector-aaaaa");
  for (const pod of [newCollector, newLearner, newDdp]) {
    assert.equal(pod.metadata.uid, undefined);
    assert.equal(pod.metadata.resourceVersion, undefined);
    assert.equal(pod.metadata.creationTimestamp, undefined);
    assert.equal(pod["status"], undefined);
    assert.equal((pod["spec"] as { nodeName?: string }).nodeName, undefined);
    assert.equal(pod.metadata.labels?.["pod-name"], pod.metadata.name);
    assert.equal(env(pod)["KUBERNETES_POD_NAME"], pod.metadata.name);
    assert.deepEqual(pod.metadata.ownerReferences?.map((r) => r.uid), ["job-a-uid"]);
  }
  assert.equal(newDdp.metadata.labels?.["aggregator-name"], "job-a-aggregator-xxxxx");
  assert.equal(env(newDdp)["WORLD_SIZE"], "2");
  const services = created(answer, "Service");
  assert.deepEqual(services.map((s) => s.metadata.name), [newCollector, newLearner, newDdp].map((p) => p.metadata.name));
  assert.deepEqual((services[0]?.["spec"] as { selector: Record<string, string> }).selector["pod-name"], newCollector.metadata.name);
  assert.deepEqual(envelope(answer).data, {
    namespace: "team-a",
    coordinator: COORDINATOR,
    collectors: [`${newCollector.metadata.name ?? ""}.team-a:80`],
    learners: [`${newLearner.metadata.name ?? ""}.team-a:80`, `${newDdp.metadata.name ?? ""}.team-a:80`, `${newDdp.metadata.name ?? ""}.team-a:81`],
  });
  assert.equal(envelope(answer).message, "successfully recreate replicas");
  assert.equal(answer.onApplyError?.status, 500);
});

test("a pod of another job, an unknown pod, or a pod in the wrong list is 404 and nothing is touched", () => {
  const cases: [unknown, RegExp][] = [
    [{ namespace: "team-a", coordinator: COORDINATOR, collectors: ["job-b-collector-eeeee"] }, /^collectors\.0: team-a\/job-b-collector-eeeee is not a collector/],
    [{ namespace: "team-a", coordinator: COORDINATOR, learners: ["job-a-learner-bbbbb", "ghost"] }, /^learners\.1: /],
    [{ namespace: "team-a", coordinator: COORDINATOR, learners: ["job-a-collector-aaaaa"] }, /^learners\.0: /],
    [{ namespace: "team-a", coordinator: COORDINATOR, learners: [COORDINATOR] }, /^learners\.0: /],
    [{ namespace: "team-a", coordinator: "nope", collectors: ["job-a-collector-aaaaa"] }, /coordinator team-a\/nope not found/],
  ];
  for (const [body, message] of cases) {
    const answer = failed(body);
    assert.equal(answer.status, 404, JSON.stringify(body));
    assert.match(envelope(answer).message, message);
    assert.deepEqual(answer.actions, []);
  }
});

test("400 for a bad body; a pod named twice is replaced once", () => {
  const bad = failed({ namespace: "team-a", coordinator: COORDINATOR, collectors: "job-a-collector-aaaaa" });
  assert.equal(bad.status, 400);
  assert.match(envelope(bad).message, /^collectors: /);
  const twice = failed({ namespace: "team-a", coordinator: COORDINATOR, collectors: ["job-a-collector-aaaaa", "job-a-collector-aaaaa"] });
  assert.equal(created(twice).length, 1);
});
