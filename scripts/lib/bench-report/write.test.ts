import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { Figure } from "./figure.ts";
import { readResults, updateReadme, writeResults } from "./write.ts";

const dir = mkdtempSync(join(tmpdir(), "edgeloop-bench-report-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const FIGURES: Figure[] = [
  { bench: "sim", metric: "creates_per_second", value: 4210, unit: "1/s", target: ">= 3000" },
  { bench: "sim", metric: "list_10k_pods_p50_ms", value: 117, unit: "ms", target: "< 200" },
];
const INFO = { machine: { cpuModel: "cpu", cores: 2, ramGiB: 4, os: "os", node: "v24" }, runs: { sim: { date: "2026-11-25T17:00:00Z", commit: "abc" } } };

test("the results folder gets the figures, the machine, the charts and the README; stale charts go, the soak's stays", () => {
  const results = join(dir, "results");
  writeResults(results, FIGURES, INFO);
  writeFileSync(join(results, "latency-gone.svg"), "<svg/>");
  writeFileSync(join(results, "soak-rss.svg"), "<svg/>");
  writeResults(results, FIGURES, INFO);
  assert.deepEqual(readdirSync(results).sort(), ["README.md", "latency-sim.svg", "latest.jsonl", "machine.json", "soak-rss.svg", "throughput.svg"]);
  assert.deepEqual(readResults(results), { figures: FIGURES, info: INFO });
  assert.deepEqual(readResults(join(dir, "none")), { figures: [], info: undefined });

  const readme = join(dir, "README.md");
  writeFileSync(readme, "# p\n\n## Figures\n\n<!-- bench:start -->\n<!-- bench:end -->\n");
  updateReadme(readme, results);
  const text = readFileSync(readme, "utf8");
  assert.match(text, /\[results\/README\.md\]\(results\/README\.md\)/, "linked relative to the README");
  assert.match(text, /!\[throughput \(1\/s\)\]\(results\/throughput\.svg\)/);
  assert.ok(existsSync(join(results, "throughput.svg")));
});

test("the last soak, when the folder has one, gets its section in the results README", () => {
  const results = join(dir, "with-soak");
  writeResults(results, FIGURES, INFO);
  assert.doesNotMatch(readFileSync(join(results, "README.md"), "utf8"), /## Soak/);
  writeFileSync(join(results, "soak-rss.svg"), "<svg/>");
  writeFileSync(join(results, "soak.jsonl"), ['{"kind":"run","minutes":10,"date":"2026-11-25T17:20:00.000Z","commit":"abc"}', '{"kind":"sample","t":0}', '{"kind":"verdict","process":"relay","outcome":"steady","slopeMiBPerHour":3.2,"riseMiB":0.4,"baseMiB":180,"samples":31}'].join("\n"));
  writeResults(results, FIGURES, INFO);
  const md = readFileSync(join(results, "README.md"), "utf8");
  assert.ok(md.includes("## Soak"));
  assert.ok(md.includes("| relay | steady | 3.2 | 0.4 |"));
  assert.ok(md.includes("RSS after warm-up"));
  assert.ok(md.includes("![soak: RSS over time](soak-rss.svg)"));
});
