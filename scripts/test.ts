/**
 * Runs every test file with Node's test runner. `npm run test:unit -- sim` runs only
 * files whose path contains "sim".
 */
import { spawnSync } from "node:child_process";
import { globSync } from "node:fs";

const HELP = `usage: npm run test:unit -- [--help] [FILTER...]

Runs all *.test.ts files (protocol/, cli/, functions/, durable/, relay/, sim/, cluster/, scripts/, test/) with
node --test. With FILTER words, only the files whose path contains one of them
(npm run test:unit -- sim relay/metrics).

Environment: EDGELOOP_TEST_CONCURRENCY, test files run at once (default 2).`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(HELP);
  process.exit(0);
}

const roots = ["protocol", "cli", "functions", "durable", "relay", "sim", "cluster", "scripts", "test"];
const files = roots
  .flatMap((root) => globSync(`${root}/**/*.test.ts`))
  .filter((file) => !file.includes("node_modules"))
  // The real control plane's own suites run in npm run test:cluster (they need Go).
  .filter((file) => !file.startsWith("test/cluster/"))
  .filter((file) => args.length === 0 || args.some((word) => file.includes(word)))
  .sort(longestFirst);

/**
 * The end-to-end files first, the walkthroughs' (minutes) before all: the runner starts
 * files in this order, two at a time, so the long ones overlap the many short ones
 * instead of running alone at the end.
 */
function longestFirst(a: string, b: string): number {
  const weight = (file: string): number => (file.endsWith("walkthroughs.test.ts") ? 2 : file.startsWith("test/e2e/") ? 1 : 0);
  return weight(b) - weight(a) || a.localeCompare(b);
}

if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}

const concurrency = process.env.EDGELOOP_TEST_CONCURRENCY ?? "2";
const result = spawnSync(process.execPath, ["--test", `--test-concurrency=${concurrency}`, "--test-timeout=120000", ...files], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
