/**
 * `npm run bench [-- PART...]`: runs every `*.bench.ts` (sim/, relay/, functions/,
 * durable/, test/bench/) and prints one JSON line per figure on stdout; progress on stderr.
 */
import { globSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

/** One measured figure. */
export interface Figure {
  readonly bench: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  /** The target, as text ("<= 50", ">= 1000"), when the issue names one. */
  readonly target?: string;
}

/** What a `*.bench.ts` file exports as default. */
export interface Benchmark {
  readonly name: string;
  run(report: (figure: Omit<Figure, "bench">) => void, progress: (message: string) => void): Promise<void>;
}

/** What each benchmark measures, for `--help` (a file not listed here is still run). */
const PARTS: Record<string, string> = {
  sim: "the sim: creates/s over HTTP, list latency at 10,000 pods, watch fan-out",
  relay: "the relay: event-to-applied latency, resync of 10,000 parents, RSS",
  sedna: "Sedna end to end: self-heal latency, 1,000 FL jobs created at once",
  nervex: "NerveX end to end: apply to coordinator Running, replicas API POST latency",
  gang: "gang scheduler end to end: 10,000 pods in groups of 8 on 1,000 nodes vs the default scheduler; pass cost",
  autonomy: "edge autonomy end to end: pod create latency with and without its Pod webhook (unbound, bound), autonomy-duration to 500 pods",
};

/** Every `*.bench.ts` file, sorted. */
function benchFiles(): string[] {
  return ["sim", "relay", "functions", "durable", "test/bench"].flatMap((root) => globSync(`${root}/**/*.bench.ts`)).sort();
}

/** A benchmark's part name: its file name without `.bench.ts`. */
function partOf(file: string): string {
  return path.basename(file, ".bench.ts");
}

function help(): string {
  const parts = [...new Set([...Object.keys(PARTS), ...benchFiles().map(partOf)])];
  return `usage: npm run bench -- [--help] [PART...]

Runs the benchmarks (*.bench.ts) and prints one JSON line per figure on stdout, progress
on stderr:
  {"bench":"sim","metric":"creates_per_second","value":4100,"unit":"1/s","target":">= 3000"}
They are measurements, not tests: nothing fails when a target is missed.

PART runs only the benchmarks whose file path contains it (default: all of them):
${parts.map((part) => `  ${part.padEnd(7)} ${PARTS[part] ?? `(${part}.bench.ts)`}`).join("\n")}`;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(help());
    return 0;
  }
  const unknown = args.find((arg) => arg.startsWith("-") || !benchFiles().some((file) => file.includes(arg)));
  if (unknown !== undefined) {
    console.error(`bench: no benchmark matches "${unknown}"\n\n${help()}`);
    return 2;
  }
  const files = benchFiles().filter((file) => args.length === 0 || args.some((word) => file.includes(word)));
  for (const file of files) {
    const module = (await import(pathToFileURL(path.resolve(file)).href)) as { default: Benchmark };
    const bench = module.default;
    process.stderr.write(`bench ${bench.name} (${file})\n`);
    await bench.run(
      (figure) => console.log(JSON.stringify({ bench: bench.name, ...figure })),
      (message) => process.stderr.write(`  ${bench.name}: ${message}\n`),
    );
  }
  return 0;
}

process.exitCode = await main();
