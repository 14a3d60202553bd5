import assert from "node:assert/strict";
import { test } from "node:test";
import type { RelayEngine } from "./engine.ts";
import { registerGauges } from "./gauges.ts";
import { startOpsServer } from "./http.ts";
import { RELAY_METRICS } from "./metric-families.ts";
import { Metrics } from "./metrics.ts";

/** A Metrics with every family recorded once, as a busy relay has them. */
function busyMetrics(): Metrics {
  const metrics = new Metrics();
  registerGauges(metrics, { queue: { depth: 3, retrying: 2, inFlight: 1 }, leading: () => true, cachedObjects: () => 42 });
  metrics.inc(`edgeloop_reconciles_total{controller="c",result="ok"}`);
  metrics.inc(`edgeloop_apply_errors_total{controller="c",action="create"}`);
  metrics.inc(`edgeloop_watch_events_total{kind="Pod",type="ADDED"}`, 2);
  metrics.inc(`edgeloop_outbox_entries_total{controller="c"}`);
  metrics.inc(`edgeloop_api_requests_total{api="a",code="200"}`);
  metrics.observe("c", 0.02);
  return metrics;
}

test("/metrics: every family has its own HELP saying what it counts, and a TYPE, before its samples", async (t) => {
  const metrics = busyMetrics();
  const engine = { metrics, ready: () => true } as unknown as RelayEngine;
  const ops = await startOpsServer(engine, 0, "127.0.0.1");
  t.after(() => ops.close());
  const text = await (await fetch(`http://127.0.0.1:${ops.port}/metrics`)).text();
  const lines = text.trimEnd().split("\n");
  const help = new Map(lines.filter((l) => l.startsWith("# HELP ")).map((l) => [l.split(" ")[2] ?? "", l.split(" ").slice(3).join(" ")]));
  assert.deepEqual([...help.keys()].sort(), Object.keys(RELAY_METRICS).sort(), "one HELP per declared family");
  assert.equal(new Set(help.values()).size, help.size, "no two families share a HELP text");
  for (const [name, text] of help) {
    assert.doesNotMatch(text, /^edgeloop relay (counter|gauge)$/, `${name} has a generic HELP`);
    assert.ok(text.length >= 15, `${name}: "${text}" says too little`);
  }
  // Each sample belongs to a family whose HELP and TYPE came before it.
  const seen = new Set<string>();
  for (const line of lines) {
    if (line.startsWith("# TYPE ")) seen.add(line.split(" ")[2] ?? "");
    if (line.startsWith("#")) continue;
    const family = (line.split(/[{ ]/)[0] ?? "").replace(/_(bucket|sum|count)$/, "");
    assert.ok(seen.has(family) && help.has(family), `sample before its family's HELP/TYPE: ${line}`);
  }
  assert.match(text, /^edgeloop_queue_depth 3$/m);
  assert.match(text, /^edgeloop_queue_waiting_retry 2$/m);
  assert.match(text, /^edgeloop_watch_events_total\{kind="Pod",type="ADDED"\} 2$/m);
  assert.match(text, /^edgeloop_reconcile_duration_seconds_count\{controller="c"\} 1$/m);
});

test("a family's samples stay together even when another family's name extends it", () => {
  const text = busyMetrics().render();
  const families = text.split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) => (l.split(/[{ ]/)[0] ?? "").replace(/_(bucket|sum|count)$/, ""));
  const runs = families.filter((f, i) => f !== families[i - 1]);
  assert.equal(new Set(runs).size, runs.length, `interleaved families: ${runs.join(", ")}`);
});
