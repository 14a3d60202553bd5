import assert from "node:assert/strict";
import { test } from "node:test";
import { FieldPath, valuesAt } from "./paths.ts";

const job = {
  spec: { aggregationWorker: { model: { name: "m" } }, trainingWorkers: [{ dataset: { name: "d1" } }, { dataset: { name: "d2" } }, { dataset: {} }] },
  endpoints: [{ nodeName: "edge1" }, { nodeName: "" }, {}, { nodeName: "edge2" }],
};

test("valuesAt follows dot paths and [] over arrays, skipping missing and empty values", () => {
  assert.deepEqual(valuesAt(job, "spec.aggregationWorker.model.name"), ["m"]);
  assert.deepEqual(valuesAt(job, "spec.trainingWorkers[].dataset.name"), ["d1", "d2"]);
  assert.deepEqual(valuesAt(job, "endpoints[].nodeName"), ["edge1", "edge2"]);
  assert.deepEqual(valuesAt(job, "spec.nothing[].x"), []);
  assert.deepEqual(valuesAt(job, "spec.aggregationWorker[].model"), [], "[] on a non-array yields nothing");
  assert.deepEqual(valuesAt(job, "spec.aggregationWorker.model"), [], "only strings are values");
});

test("FieldPath accepts dot paths with [] and refuses anything else, naming what is expected", () => {
  for (const good of ["spec.nodeName", "endpoints[].nodeName", "object.spec.trainingWorkers[].dataset.name", "query.namespace"]) assert.ok(FieldPath.safeParse(good).success, good);
  for (const bad of ["", ".spec", "spec.", "spec..x", "spec[0].x", "spec.nodeName[]x", "a b"]) {
    const parsed = FieldPath.safeParse(bad);
    assert.ok(!parsed.success, bad);
    if (!parsed.success) assert.match(parsed.error.issues[0]?.message ?? "", /dot path such as spec.nodeName/);
  }
});
