import assert from "node:assert/strict";
import { test } from "node:test";
import { checkXml, texts } from "../bench-report/testing/xml.ts";
import { progressLine, rssChart, samplesTable, soakJsonLines, verdictLines, type SoakSample } from "./report.ts";
import { judgeGrowth } from "./verdict.ts";

const SAMPLES: SoakSample[] = [0, 10, 20].map((t, i) => ({ t, relayMiB: 90 + i, simMiB: 300.25, relayBeforeGcMiB: 95 + i, simBeforeGcMiB: 320, workerdMiB: i === 1 ? undefined : 150, workerRequestsPerSecond: 12.34, pods: 40, operations: i * 40, failures: 0 }));

test("a progress line per sample, a table with a row per sample, JSON lines per sample and verdict", () => {
  assert.equal(progressLine(SAMPLES[2] as SoakSample, 2), "soak 0:20/2:00  RSS after GC (before) relay 92.0 (97.0) MiB, sim 300.3 (320.0) MiB, workerd 150.0 MiB; Worker 12.3 req/s; 40 pods; 80 churn ops (0 failed)");
  const table = samplesTable(SAMPLES).split("\n");
  assert.equal(table.length, 2 + 3);
  assert.match(table[0] ?? "", /t \(s\)\s+relay MiB\s+\(before GC\)\s+sim MiB\s+\(before GC\)\s+workerd MiB\s+Worker req\/s/);
  assert.match(table[3] ?? "", /\?/, "a missing reading shows as ?");
  const verdicts = { relay: judgeGrowth(SAMPLES.map((s) => ({ t: s.t, mib: s.relayMiB ?? 0 }))) };
  const lines = soakJsonLines(SAMPLES, verdicts, { minutes: 2 }).trim().split("\n").map((line) => JSON.parse(line) as { kind: string });
  assert.deepEqual(lines.map((line) => line.kind), ["run", "sample", "sample", "sample", "verdict"]);
  assert.match(verdictLines(verdicts, { maxGrowthMiBPerHour: 50 })[0] ?? "", /^relay +not judged/);
});

test("the RSS chart is well-formed SVG with a line per process and labelled axes", () => {
  const svg = rssChart(SAMPLES, 2);
  const names = checkXml(svg);
  assert.equal(names.filter((n) => n === "polyline").length, 5);
  for (const label of ["seconds", "RSS (MiB)", "relay after GC", "sim before", "workerd", "soak: RSS over 2 min of mixed churn"]) assert.ok(texts(svg).includes(label), label);
});
