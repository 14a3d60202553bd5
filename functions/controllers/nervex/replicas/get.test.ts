import assert from "node:assert/strict";
import { test } from "node:test";
import { call, envelope, existing, mockJob, related, request } from "./testing/world.ts";

const job = mockJob("job-a", "team-a");
const other = mockJob("job-b", "team-a");
const elsewhere = mockJob("job-c", "team-b");
const pods = [
  existing(job, "coordinator", ""),
  existing(job, "collector", "job-a-collector-aaaaa"),
  existing(job, "learner", "job-a-learner-bbbbb"),
  existing(job, "aggregator", "job-a-aggregator-ccccc"),
  existing(job, "ddp-learner", "job-a-ddp-learner-ddddd", undefined, { aggregator: "job-a-aggregator-ccccc", gpus: 2 }),
  existing(other, "coordinator", ""),
  existing(other, "collector", "job-b-collector-eeeee"),
  existing(elsewhere, "coordinator", ""),
];
const world = related({ pods, jobs: [job, other, elsewhere] });

test("?namespace= with a {} body: one set per coordinator of that namespace; no namespace is a 400 naming it", () => {
  const answer = call(request({ method: "GET", query: { namespace: "team-a" }, body: "{}", related: world }));
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.actions, []);
  const { success, code, data } = envelope(answer);
  assert.equal(success, true);
  assert.equal(code, 0);
  assert.deepEqual(data, [
    { namespace: "team-a", coordinator: "job-a-coordinator", collectors: ["job-a-collector-aaaaa.team-a:80"], learners: ["job-a-aggregator-ccccc.team-a:80", "job-a-learner-bbbbb.team-a:80"] },
    { namespace: "team-a", coordinator: "job-b-coordinator", collectors: ["job-b-collector-eeeee.team-a:80"], learners: [] },
  ]);
  const unscoped = call(request({ method: "GET", body: "{}", related: world }));
  assert.equal(unscoped.status, 400);
  assert.match(envelope(unscoped).message, /^namespace: required/);
});

test("?namespace=: that namespace's sets only", () => {
  const answer = call(request({ method: "GET", query: { namespace: "team-b" }, related: world }));
  assert.deepEqual(envelope(answer).data, [{ namespace: "team-b", coordinator: "job-c-coordinator", collectors: [], learners: [] }]);
});

test("?namespace=&coordinator=: one object, aggregators as learners, no ddp-learners, no other job's pods", () => {
  const answer = call(request({ method: "GET", query: { namespace: "team-a", coordinator: "job-a-coordinator" }, body: "", related: world }));
  assert.deepEqual(envelope(answer).data, {
    namespace: "team-a",
    coordinator: "job-a-coordinator",
    collectors: ["job-a-collector-aaaaa.team-a:80"],
    learners: ["job-a-aggregator-ccccc.team-a:80", "job-a-learner-bbbbb.team-a:80"],
  });
});

test("a terminating pod, and a pod merely labelled with the job's name, are not listed", () => {
  const dying = existing(job, "collector", "job-a-collector-zzzzz");
  const impostor = existing(job, "collector", "job-a-collector-yyyyy");
  const pods2 = [
    ...pods,
    { ...dying, pod: { ...dying.pod, metadata: { ...dying.pod.metadata, deletionTimestamp: "2026-11-23T11:00:00Z" } } },
    { ...impostor, pod: { ...impostor.pod, metadata: { ...impostor.pod.metadata, ownerReferences: [] } } },
  ];
  const answer = call(request({ method: "GET", query: { namespace: "team-a", coordinator: "job-a-coordinator" }, related: related({ pods: pods2, jobs: [job] }) }));
  assert.deepEqual((envelope(answer).data as { collectors: string[] }).collectors, ["job-a-collector-aaaaa.team-a:80"]);
});

test("?namespace=&aggregator=: the ddp-learners' URLs, one per GPU port", () => {
  const answer = call(request({ method: "GET", query: { namespace: "team-a", aggregator: "job-a-aggregator-ccccc" }, related: world }));
  assert.deepEqual(envelope(answer).data, {
    namespace: "team-a",
    coordinator: "job-a-coordinator",
    collectors: [],
    learners: ["job-a-ddp-learner-ddddd.team-a:80", "job-a-ddp-learner-ddddd.team-a:81"],
  });
});

test("?namespace=&name=: that replica's set (upstream answered no data), 404 when absent", () => {
  const answer = call(request({ method: "GET", query: { namespace: "team-a", name: "job-b-collector-eeeee" }, related: world }));
  assert.deepEqual(envelope(answer).data, { namespace: "team-a", coordinator: "job-b-coordinator", collectors: ["job-b-collector-eeeee.team-a:80"], learners: [] });
  const missing = call(request({ method: "GET", query: { namespace: "team-a", name: "nope" }, related: world }));
  assert.equal(missing.status, 404);
  assert.deepEqual(envelope(missing), { success: false, code: 1, message: "replica team-a/nope not found", data: null });
});

test("404 for an unknown coordinator or aggregator; 400 for a bad query", () => {
  const queries: Record<string, string>[] = [{ namespace: "team-a", coordinator: "nope" }, { namespace: "team-b", coordinator: "job-a-coordinator" }, { namespace: "team-a", coordinator: "job-a-collector-aaaaa" }, { namespace: "team-a", aggregator: "job-a-learner-bbbbb" }];
  for (const query of queries) {
    const answer = call(request({ method: "GET", query, related: world }));
    assert.equal(answer.status, 404, JSON.stringify(query));
    assert.equal(envelope(answer).code, 1);
  }
  const bad = call(request({ method: "GET", query: { coordinator: "job-a-coordinator" }, related: world }));
  assert.equal(bad.status, 400);
  assert.match(envelope(bad).message, /^namespace: /);
});
