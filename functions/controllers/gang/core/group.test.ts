import assert from "node:assert/strict";
import { test } from "node:test";
import { groupOf, isOurs, parseGroupSize } from "./group.ts";

test("a pod without labels is a group of one named after it", () => {
  const group = groupOf({ metadata: { name: "job-abc", namespace: "team" } });
  assert.deepEqual(group, { namespace: "team", name: "fluxnetes-group-team-job-abc", key: "team/fluxnetes-group-team-job-abc", size: 1 });
});

test("the labels name the group and its size", () => {
  const group = groupOf({ metadata: { name: "p", namespace: "ns", labels: { "fluxnetes.group-name": "job", "fluxnetes.group-size": "10" } } });
  assert.equal(group.key, "ns/job");
  assert.equal(group.size, 10);
});

test("a bad or absent size is 1, a huge one is bounded", () => {
  for (const bad of [undefined, "", "0", "-3", "1.5", "x", "1e3", " "]) assert.equal(parseGroupSize(bad), 1, String(bad));
  assert.equal(parseGroupSize("7"), 7);
  assert.equal(parseGroupSize("99999999"), 10_000);
});

test("a pod is ours when its schedulerName is fluxnetes", () => {
  assert.equal(isOurs({ spec: { schedulerName: "fluxnetes" } }), true);
  assert.equal(isOurs({ spec: { schedulerName: "default-scheduler" } }), false);
  assert.equal(isOurs({ spec: {} }), false);
  assert.equal(isOurs(null), false);
});
