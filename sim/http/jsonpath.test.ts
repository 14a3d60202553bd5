import assert from "node:assert/strict";
import { test } from "node:test";
import { evaluateJsonPath, parseJsonPath, printerCell } from "./jsonpath.ts";

const job = {
  metadata: { name: "j", labels: { "app.kubernetes.io/name": "x" } },
  spec: { replicas: 3 },
  status: {
    conditions: [
      { type: "Pending", status: "False" },
      { type: "Running", status: "True" },
      { type: "Ready", status: "True" },
    ],
  },
};

test("simple fields and indexes", () => {
  assert.equal(printerCell(job, ".spec.replicas"), 3);
  assert.equal(printerCell(job, ".status.conditions[0].type"), "Pending");
  assert.equal(printerCell(job, ".status.conditions[-1].type"), "Ready");
  assert.equal(printerCell(job, ".metadata.labels['app.kubernetes.io/name']"), "x");
});

test("filters select matching items; several values are joined with commas", () => {
  assert.equal(printerCell(job, '.status.conditions[?(@.status=="True")].type'), "Running,Ready");
  assert.equal(printerCell(job, '.status.conditions[?(@.status!="True")].type'), "Pending");
  assert.deepEqual(evaluateJsonPath(job, ".status.conditions[*].type"), ["Pending", "Running", "Ready"]);
});

test("missing values and unsupported syntax give nothing, not an error", () => {
  assert.equal(printerCell(job, ".status.active"), undefined);
  assert.equal(printerCell(job, '.status.conditions[?(@.status=="Unknown")].type'), undefined);
  assert.deepEqual(evaluateJsonPath(job, ".status..type"), []);
  assert.throws(() => parseJsonPath(".a[1:2]"), /unsupported/);
});
