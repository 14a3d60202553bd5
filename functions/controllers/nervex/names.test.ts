import assert from "node:assert/strict";
import { test } from "node:test";
import { isDns1035Label, isDns1123Label, isValidLabelValue } from "../../../protocol/kube/names.ts";
import { replicaLabels } from "./labels.ts";
import { coordinatorName, replicaName } from "./names.ts";

/** A valid 253-character DNS-1123 subdomain with dots, as a job's name may be. */
const LONG = Array.from({ length: 4 }, (_, i) => `${String.fromCharCode(97 + i)}${"x".repeat(61)}`).join(".") + ".a";

test("the long job name is a valid 253-character subdomain", () => {
  assert.equal(LONG.length, 253);
  assert.ok(LONG.split(".").every((part) => isDns1123Label(part).length === 0));
});

test("usual names stay as upstream's", () => {
  assert.equal(coordinatorName("nervexjob-example"), "nervexjob-example-coordinator");
  assert.equal(replicaName("nervexjob-example", "collector", "ab1c2"), "nervexjob-example-collector-ab1c2");
  assert.equal(replicaName("job", "ddp-learner", "x9"), "job-ddp-learner-x9");
});

test("names of a 253-character dotted job are DNS-1035 labels of at most 63 characters, unique and stable", () => {
  const names = [coordinatorName(LONG), replicaName(LONG, "collector", "abcde"), replicaName(LONG, "learner", "abcde"), replicaName(LONG, "ddp-learner", "zz")];
  for (const name of names) {
    assert.ok(name.length <= 63, name);
    assert.ok(isDns1035Label(name).length === 0, name);
    assert.ok(!name.includes("."), name);
  }
  assert.equal(new Set(names).size, names.length);
  assert.equal(coordinatorName(LONG), coordinatorName(LONG));
  assert.match(coordinatorName(LONG), /-coordinator$/);
  // Two long names that share their first 63 characters still get different names.
  assert.notEqual(coordinatorName(LONG), coordinatorName(`${LONG.slice(0, 250)}xyz`));
});

test("a short dotted name or one starting with a digit still yields a Service name", () => {
  for (const job of ["my.job", "1job", "9.9"]) {
    const name = coordinatorName(job);
    assert.ok(isDns1035Label(name).length === 0, `${job} → ${name}`);
  }
});

test("replica labels are valid label values for any job name", () => {
  const labels = replicaLabels(LONG, "coordinator", coordinatorName(LONG));
  for (const value of Object.values(labels)) assert.ok(isValidLabelValue(value).length === 0, value);
  assert.deepEqual(replicaLabels("job", "learner", "job-learner-a"), {
    "group-name": "nervex.sensetime.com",
    "nervexjob-name": "job",
    "controller-name": "nervex-operator",
    "replica-type": "learner",
    "pod-name": "job-learner-a",
  });
});
