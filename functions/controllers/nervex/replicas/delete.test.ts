import assert from "node:assert/strict";
import { test } from "node:test";
import { call, deleted, envelope, existing, mockJob, related, request } from "./testing/world.ts";

const job = mockJob("job-a", "team-a");
const other = mockJob("job-b", "team-a");
const COORDINATOR = "job-a-coordinator";
const pods = [
  existing(job, "coordinator", ""),
  existing(job, "collector", "job-a-collector-old00", "2026-11-23T09:00:00Z"),
  existing(job, "collector", "job-a-collector-new00", "2026-11-23T11:00:00Z"),
  existing(job, "collector", "job-a-collector-new01", "2026-11-23T11:00:00Z"),
  existing(job, "learner", "job-a-learner-lrn00", "2026-11-23T09:00:00Z"),
  existing(job, "aggregator", "job-a-aggregator-agg00", "2026-11-23T10:00:00Z"),
  existing(job, "ddp-learner", "job-a-ddp-learner-ddp00", "2026-11-23T10:00:00Z", { aggregator: "job-a-aggregator-agg00", gpus: 8 }),
  existing(job, "ddp-learner", "job-a-ddp-learner-ddp01", "2026-11-23T10:00:00Z", { aggregator: "job-a-aggregator-agg00", gpus: 2 }),
  existing(other, "coordinator", ""),
  existing(other, "collector", "job-b-collector-zzz00", "2026-11-23T12:00:00Z"),
  existing(other, "learner", "job-b-learner-zzz01", "2026-11-23T12:00:00Z"),
];
const world = related({ pods, jobs: [job, other] });

function del(body: unknown, rel = world): ReturnType<typeof call> {
  return call(request({ method: "DELETE", body, related: rel }));
}

test("newest collectors first, each pod (pinned to its uid) with its Service; the reply lists their URLs", () => {
  const answer = del(JSON.stringify({ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 2 } }));
  assert.equal(answer.status, 200);
  assert.deepEqual(deleted(answer), ["Pod/job-a-collector-new01", "Service/job-a-collector-new01", "Pod/job-a-collector-new00", "Service/job-a-collector-new00"]);
  const first = answer.actions[0];
  assert.ok(first?.type === "delete" && first.preconditions?.uid === "job-a-collector-new01-uid");
  assert.deepEqual(envelope(answer), {
    success: true,
    code: 0,
    message: "successfully delete replicas",
    data: { namespace: "team-a", coordinator: COORDINATOR, collectors: ["job-a-collector-new01.team-a:80", "job-a-collector-new00.team-a:80"], learners: [] },
  });
  assert.equal(answer.onApplyError?.status, 500);
});

test("plain learners go first, then aggregators with their ddp-learners", () => {
  const answer = del({ namespace: "team-a", coordinator: COORDINATOR, learners: { replicas: 2 } });
  assert.deepEqual(deleted(answer), [
    "Pod/job-a-learner-lrn00",
    "Service/job-a-learner-lrn00",
    "Pod/job-a-aggregator-agg00",
    "Service/job-a-aggregator-agg00",
    "Pod/job-a-ddp-learner-ddp00",
    "Service/job-a-ddp-learner-ddp00",
    "Pod/job-a-ddp-learner-ddp01",
    "Service/job-a-ddp-learner-ddp01",
  ]);
  assert.deepEqual((envelope(answer).data as { learners: string[] }).learners, ["job-a-learner-lrn00.team-a:80", "job-a-aggregator-agg00.team-a:80"]);
});

test("another job's pods are never touched, even when asked for more than the job has", () => {
  const answer = del({ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 100 }, learners: { replicas: 100 } });
  const names = deleted(answer);
  assert.equal(names.filter((n) => n.startsWith("Pod/")).length, 7);
  assert.ok(names.every((n) => n.includes("job-a-") && !n.includes("coordinator")), names.join(" "));
  const services = [...pods.map((p) => p.service)];
  // A Service of the pod's name that the job does not own is left alone.
  const foreign = { ...services[1], metadata: { ...services[1]?.metadata, ownerReferences: [] } };
  const rel = { ...world, "Service.v1": [foreign, ...services.slice(2)] } as typeof world;
  const only = del({ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 3 } }, rel);
  assert.ok(deleted(only).includes("Pod/job-a-collector-old00"));
  assert.ok(!deleted(only).includes("Service/job-a-collector-old00"));
});

test("refusals: a {} body is 400 naming namespace; an unknown coordinator is 404; bad JSON is 400", () => {
  const empty = del("{}");
  assert.equal(empty.status, 400);
  assert.match(envelope(empty).message, /^namespace: /);
  const unknown = del({ namespace: "team-a", coordinator: "nope", collectors: { replicas: 1 } });
  assert.equal(unknown.status, 404);
  assert.deepEqual(unknown.actions, []);
  const bad = del("]");
  assert.equal(bad.status, 400);
  assert.equal(envelope(bad).message, "body: not valid JSON");
});

test("a Service not cached yet (made a moment ago with its pod) is deleted by its name; a foreign one of that name is left alone", () => {
  const unseen = { ...world, "Service.v1": (world["Service.v1"] ?? []).filter((s) => s.metadata.name !== "job-a-collector-new01") };
  const answer = del({ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 1 } }, unseen);
  assert.deepEqual(deleted(answer), ["Pod/job-a-collector-new01", "Service/job-a-collector-new01"]);
  const service = answer.actions[1];
  assert.ok(service?.type === "delete" && service.preconditions === undefined, "by name: there is no uid to pin it to");
  const foreign = {
    ...world,
    "Service.v1": (world["Service.v1"] ?? []).map((s) => (s.metadata.name === "job-a-collector-new01" ? { ...s, metadata: { ...s.metadata, ownerReferences: [] } } : s)),
  };
  assert.deepEqual(deleted(del({ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 1 } }, foreign)), ["Pod/job-a-collector-new01"]);
});
