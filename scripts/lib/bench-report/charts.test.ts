import assert from "node:assert/strict";
import { test } from "node:test";
import { isThroughput, latencyKey, renderCharts } from "./charts.ts";
import type { Figure } from "./figure.ts";
import { checkXml, texts } from "./testing/xml.ts";

const SIM: Figure[] = [
  { bench: "sim", metric: "creates_per_second", value: 4210, unit: "1/s", target: ">= 3000" },
  { bench: "sim", metric: "list_10k_pods_p50_ms", value: 117, unit: "ms", target: "< 200" },
  { bench: "sim", metric: "list_10k_pods_max_ms", value: 230, unit: "ms" },
  { bench: "sim", metric: "watch_fanout_event_rate", value: 3000, unit: "1/s", target: ">= 3000" },
  { bench: "sim", metric: "watch_fanout_delivered_ratio", value: 1, unit: "ratio", target: "= 1" },
  { bench: "sim", metric: "watch_fanout_lag_p99_ms", value: 3, unit: "ms" },
];
const GANG: Figure[] = [100, 1000, 10000].map((groups, i) => ({ bench: "gang", metric: `pass_ms_${groups}_groups`, value: [2.1, 21.5, 240][i] ?? 0, unit: "ms", series: "pass_ms", x: groups, xUnit: "pending groups" }));

test("a latency figure is found by the percentile its metric names, in a unit of time", () => {
  assert.deepEqual(latencyKey({ bench: "s", metric: "self_heal_p99_ms", value: 1, unit: "ms" }), { row: "self_heal_ms", percentile: "p99" });
  assert.deepEqual(latencyKey({ bench: "s", metric: "annotation_to_pod_p50_ms_10m_to_20m", value: 1, unit: "ms" }), { row: "annotation_to_pod_ms_10m_to_20m", percentile: "p50" });
  assert.deepEqual(latencyKey({ bench: "s", metric: "list_10k_pods_max_ms", value: 1, unit: "ms" }), { row: "list_10k_pods_ms", percentile: "max" });
  assert.equal(latencyKey({ bench: "s", metric: "relay_rss_10k_pods_mib", value: 1, unit: "MiB" }), undefined);
  assert.equal(latencyKey({ bench: "s", metric: "fl_1000_jobs_all_running_s", value: 1, unit: "s" }), undefined);
  assert.equal(latencyKey(GANG[0] as Figure), undefined, "a point of a curve is drawn on its curve");
  assert.equal(isThroughput(SIM[0] as Figure), true);
  assert.equal(isThroughput(SIM[4] as Figure), false);
});

test("the sim's figures make a latency chart and a throughput chart, well-formed, with every value", () => {
  const charts = renderCharts(SIM);
  assert.deepEqual(charts.map((c) => c.file), ["latency-sim.svg", "throughput.svg"]);
  const [latency, throughput] = charts.map((c) => c.svg) as [string, string];
  checkXml(latency);
  checkXml(throughput);
  for (const value of ["list_10k_pods_ms", "watch_fanout_lag_ms", "117", "230", "3", "p50", "p99", "max"]) assert.ok(texts(latency).includes(value), value);
  for (const value of ["sim: creates_per_second", "sim: watch_fanout_event_rate", "4210", "3000", "1/s"]) assert.ok(texts(throughput).includes(value), value);
  assert.doesNotMatch(latency + throughput, /ratio/, "a ratio is neither");
});

test("figures with a series and an x make one curve per bench and axis", () => {
  const charts = renderCharts([...SIM, ...GANG]);
  const curve = charts.find((c) => c.file.startsWith("curve-"));
  assert.equal(curve?.file, "curve-gang-pass-ms-by-pending-groups.svg");
  assert.equal(curve?.bench, "gang");
  checkXml(curve?.svg ?? "");
  for (const value of ["100", "1000", "10000", "2.1", "21.5", "240", "ms", "pending groups (log scale)"]) assert.ok(texts(curve?.svg ?? "").includes(value), value);
  assert.equal(charts.filter((c) => c.bench === "gang" && c.file.startsWith("latency-")).length, 0);
});

test("no figures, no charts", () => {
  assert.deepEqual(renderCharts([]), []);
});

test("figures of two modes side by side (the hop bench) make one row per mode, ratios in no chart", () => {
  const hop: Figure[] = [
    { bench: "hop", metric: "in_process_self_heal_p50_ms", value: 4, unit: "ms" },
    { bench: "hop", metric: "in_process_self_heal_p99_ms", value: 20, unit: "ms" },
    { bench: "hop", metric: "worker_self_heal_p50_ms", value: 6, unit: "ms" },
    { bench: "hop", metric: "worker_self_heal_p99_ms", value: 28, unit: "ms" },
    { bench: "hop", metric: "worker_resync_reconciles_per_second", value: 900, unit: "1/s" },
    { bench: "hop", metric: "p99_ratio", value: 1.4, unit: "x", target: "<= 1.5" },
  ];
  const charts = renderCharts(hop);
  assert.deepEqual(charts.map((c) => c.file), ["latency-hop.svg", "throughput.svg"]);
  const rows = texts(charts[0]?.svg ?? "");
  assert.ok(rows.includes("in_process_self_heal_ms") && rows.includes("worker_self_heal_ms"));
  assert.ok(!charts.some((c) => texts(c.svg).some((t) => t.includes("p99_ratio"))));
});
