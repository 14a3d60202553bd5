import assert from "node:assert/strict";
import { test } from "node:test";
import type { Figure } from "./figure.ts";
import type { RunInfo } from "./machine.ts";
import { README_END, README_START, readmeSection, replaceSection, resultsMarkdown } from "./markdown.ts";

const FIGURES: Figure[] = [
  { bench: "sim", metric: "creates_per_second", value: 4210, unit: "1/s", target: ">= 3000" },
  { bench: "sim", metric: "list_10k_pods_max_ms", value: 230, unit: "ms" },
  { bench: "relay", metric: "event_to_applied_p99_ms", value: 61.2, unit: "ms", target: "<= 50" },
];
const INFO: RunInfo = {
  machine: { cpuModel: "AMD EPYC", cores: 2, ramGiB: 23.5, os: "Linux 6.1 (linux)", node: "v24.21.0" },
  runs: { sim: { date: "2026-11-25T16:58:30.000Z", commit: "64c004cc1d89" }, relay: { date: "2026-11-25T17:30:00.000Z", commit: "64c004cc1d89" } },
};

test("the results README has the machine, a table per bench with met?, and the charts", () => {
  const md = resultsMarkdown(FIGURES, INFO, [{ file: "latency-relay.svg", bench: "relay", title: "relay: latency", svg: "" }, { file: "throughput.svg", title: "throughput (1/s)", svg: "" }]);
  for (const line of ["- CPU: AMD EPYC, 2 cores", "- RAM: 23.5 GiB", "- Node: v24.21.0", "- date: 2026-11-25", "- git commit: `64c004cc1d89`", "## sim", "## relay", "Targets met: 1 of 2."]) assert.ok(md.includes(line), line);
  assert.ok(md.includes("| `creates_per_second` | 4210 | 1/s | >= 3000 | yes |"));
  assert.ok(md.includes("| `event_to_applied_p99_ms` | 61.2 | ms | <= 50 | **no** |"));
  assert.ok(md.includes("| `list_10k_pods_max_ms` | 230 | ms |  |  |"));
  assert.ok(md.indexOf("![relay: latency](latency-relay.svg)") > md.indexOf("## relay"));
  assert.ok(md.indexOf("![throughput (1/s)](throughput.svg)") > md.indexOf("## Across benches"));
});

test("the README section holds the figures with a target and the machine, and replaces only what is between the markers", () => {
  const section = readmeSection(FIGURES, INFO, "bench/results", []);
  assert.ok(section.startsWith(README_START) && section.endsWith(README_END));
  assert.ok(section.includes("| sim | `creates_per_second` | 4210 | 1/s | >= 3000 | yes |"));
  assert.ok(!section.includes("list_10k_pods_max_ms"), "only figures with a target");
  assert.ok(section.includes("[bench/results/README.md](bench/results/README.md)"));
  assert.ok(section.includes("- CPU: AMD EPYC, 2 cores"));
  const readme = `# x\n\n## Figures\n\n${README_START}\nold\n${README_END}\n\n## Next\n`;
  const updated = replaceSection(readme, section);
  assert.ok(updated.startsWith("# x\n\n## Figures\n\n") && updated.endsWith("\n\n## Next\n") && !updated.includes("old"));
  assert.equal(replaceSection(updated, section), updated, "idempotent");
  assert.throws(() => replaceSection("# no markers", section), /no <!-- bench:start -->/);
});
