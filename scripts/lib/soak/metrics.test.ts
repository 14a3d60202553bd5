import assert from "node:assert/strict";
import { test } from "node:test";
import { metricSum } from "./metrics.ts";

test("metricSum adds every label set of one metric and nothing else", () => {
  const text = ['# HELP edgeloop_reconciles_total x', '# TYPE edgeloop_reconciles_total counter', 'edgeloop_reconciles_total{controller="a",result="ok"} 3', 'edgeloop_reconciles_total{controller="b",result="error"} 2', "edgeloop_reconciles_totalx 100", "edgeloop_queue_depth 7"].join("\n");
  assert.equal(metricSum(text, "edgeloop_reconciles_total"), 5);
  assert.equal(metricSum(text, "edgeloop_queue_depth"), 7);
  assert.equal(metricSum(text, "missing"), 0);
});
