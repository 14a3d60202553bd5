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

test("an absent size is 1; a size that is not a whole number from 1 to 10000 is refused, naming the label (upstream's strconv.ParseInt refuses it too)", () => {
  assert.deepEqual(parseGroupSize(undefined), { size: 1 });
  assert.deepEqual(parseGroupSize("7"), { size: 7 });
  assert.deepEqual(parseGroupSize("007"), { size: 7 });
  assert.deepEqual(parseGroupSize("10000"), { size: 10_000 });
  for (const bad of ["", "0", "-3", "1.5", "x", "1e3", " ", "10001", "1000000", "99999999999999999999"]) {
    assert.deepEqual(parseGroupSize(bad), { refused: `metadata.labels["fluxnetes.group-size"] is ${JSON.stringify(bad)}: a group size is a whole number from 1 to 10000` }, bad);
  }
});

test("a pod whose size label is refused is a group of one with the refusal", () => {
  const group = groupOf({ metadata: { name: "p", namespace: "ns", labels: { "fluxnetes.group-name": "job", "fluxnetes.group-size": "1000000" } } });
  assert.deepEqual([group.key, group.size, group.sizeRefused], ["ns/job", 1, 'metadata.labels["fluxnetes.group-size"] is "1000000": a group size is a whole number from 1 to 10000']);
});

test("a pod is ours when its schedulerName is fluxnetes", () => {
  assert.equal(isOurs({ spec: { schedulerName: "fluxnetes" } }), true);
  assert.equal(isOurs({ spec: { schedulerName: "default-scheduler" } }), false);
  assert.equal(isOurs({ spec: {} }), false);
  assert.equal(isOurs(null), false);
});
