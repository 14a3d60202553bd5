import assert from "node:assert/strict";
import { test } from "node:test";
import { FieldPath, hasKeyAt, holdsValue, valuesAt } from "./paths.ts";

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

test("holdsValue: anything but absence, null, empty, zero or false, at any element of []", () => {
  assert.equal(holdsValue(job, "spec.aggregationWorker.model.name"), true);
  assert.equal(holdsValue(job, "endpoints[].nodeName"), true);
  assert.equal(holdsValue({ a: { b: 0, c: false, d: "", e: null } }, "a.b"), false);
  for (const path of ["a.c", "a.d", "a.e", "a.f", "a.b.x"]) assert.equal(holdsValue({ a: { b: 0, c: false, d: "", e: null } }, path), false, path);
});

test("hasKeyAt: a map at the path holding one of the keys, whatever its value (keys a path cannot spell)", () => {
  const pod = { metadata: { annotations: { "example.com/kept": "", other: "x" } }, list: [{ m: { k: 1 } }, { m: [] }] };
  assert.equal(hasKeyAt(pod, "metadata.annotations", ["example.com/kept"]), true, "an empty value counts");
  assert.equal(hasKeyAt(pod, "metadata.annotations", ["absent", "other"]), true);
  assert.equal(hasKeyAt(pod, "metadata.annotations", ["absent"]), false);
  assert.equal(hasKeyAt(pod, "metadata.labels", ["other"]), false, "no map at the path");
  assert.equal(hasKeyAt(pod, "list[].m", ["k"]), true, "[] walks every element");
  assert.equal(hasKeyAt(pod, "list[].m", ["0", "length"]), false, "an array is not a map");
  assert.equal(hasKeyAt({ m: Object.create({ inherited: 1 }) as object }, "m", ["inherited"]), false, "own keys only");
});
