import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { schedulePass } from "./pass.ts";
import { parsePod, type PodRecord } from "./records.ts";
import { at, node } from "./testing/build.ts";

/** The pods a Job of the upstream examples makes (`parallelism`, default 1), in namespace `namespace`, created `created` s after the epoch of the tests. */
function jobPods(file: string, namespace: string, created: number): PodRecord[] {
  const job = parse(readFileSync(new URL(`../../../../test/fixtures/fluxnetes/${file}`, import.meta.url), "utf8")) as { metadata: { name: string }; spec: { parallelism?: number; template: { metadata?: Record<string, unknown>; spec: Record<string, unknown> } } };
  return Array.from({ length: job.spec.parallelism ?? 1 }, (_, i) =>
    parsePod({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { ...job.spec.template.metadata, name: `${job.metadata.name}-${i}`, namespace, uid: `${namespace}-${job.metadata.name}-${i}`, creationTimestamp: new Date(at(created)).toISOString() },
      spec: job.spec.template.spec,
      status: { phase: "Pending" },
    }),
  );
}

test("the upstream examples on a three-node cluster: groups of one, a group of ten, a deadline, an unsatisfiable group", () => {
  const nodes = [node("kind-worker", { cpu: "4" }), node("kind-worker2", { cpu: "4" }), node("kind-worker3", { cpu: "4" })];
  const pods = [
    ...jobPods("job-unsatisfiable.yaml", "a", 1),
    ...jobPods("job-10.yaml", "b", 2),
    ...jobPods("job.yaml", "c", 3),
    ...jobPods("job-deadline.yaml", "d", 4),
    ...["batch-job1.yaml", "batch-job2.yaml", "batch-job3.yaml", "batch-job4.yaml", "batch-job5.yaml"].flatMap((file, i) => jobPods(file, "e", 5 + i)),
  ];
  const report = schedulePass({ now: at(100), nodes, pods, allocations: [], defaultDurationSeconds: 3600 });
  assert.deepEqual(report.rejected.map((r) => r.group), ["a/job"]);
  assert.match(report.rejected[0]?.reason.text ?? "", /^can never fit on this cluster: cpu: 10 pods need 188 more on 3 candidate nodes$/);
  assert.deepEqual(report.starts.map((s) => [s.group, s.placed.size]), [
    ["b/job", 10],
    ["c/fluxnetes-group-c-job-0", 1],
    ["d/fluxnetes-group-d-job-deadline-0", 1],
    ["e/fluxnetes-group-e-job1-0", 1],
    ["e/job-2", 2],
    ["e/fluxnetes-group-e-job3-0", 1],
    ["e/fluxnetes-group-e-job3-1", 1],
    ["e/fluxnetes-group-e-job4-0", 1],
    ["e/fluxnetes-group-e-job4-1", 1],
    ["e/fluxnetes-group-e-job5-0", 1],
  ]);
  // batch-job2 names its group without a size: size 1, but both its pods are there and go together.
  assert.equal(report.starts.find((s) => s.group.startsWith("d/"))?.allocation.endsAt, at(105), "activeDeadlineSeconds: 5");
  assert.equal(report.starts.find((s) => s.group.startsWith("c/"))?.allocation.endsAt, at(3700), "the default duration");
  assert.equal(report.reservation, undefined);
});

test("a group whose pods have not all arrived stays provisional", () => {
  const pods = jobPods("job-10.yaml", "b", 2).slice(0, 7);
  const report = schedulePass({ now: at(100), nodes: [node("n")], pods, allocations: [] });
  assert.deepEqual(report.provisional.map((g) => [g.key, g.have, g.size]), [["b/job", 7, 10]]);
  assert.deepEqual(report.starts, []);
});

test("an allocated group is not queued again, and its pods hold their room until bound", () => {
  const pods = jobPods("job.yaml", "c", 1);
  const first = schedulePass({ now: at(100), nodes: [node("n", { pods: "1" })], pods, allocations: [] });
  const allocation = first.starts[0]?.allocation;
  assert.ok(allocation);
  const second = schedulePass({ now: at(101), nodes: [node("n", { pods: "1" })], pods: [...pods, ...jobPods("batch-job1.yaml", "e", 2)], allocations: [allocation] });
  assert.deepEqual(second.starts, []);
  assert.equal(second.reservation?.group, "e/fluxnetes-group-e-job1-0");
  assert.equal(second.reservation?.at, undefined, "job.yaml has no deadline and no default was given");
  assert.equal(second.reservation?.reason.text, "pods: 1 pod needs 1 more on 1 candidate node; reservation: never within known ends");
});
