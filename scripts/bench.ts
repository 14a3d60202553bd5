/**
 * `npm run bench [-- WORD...]`: runs every `*.bench.ts` (sim/, relay/, functions/,
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

const HELP = `usage: npm run bench -- [--help] [WORD...]

Runs the benchmarks (*.bench.ts) and prints one JSON line per figure:
  {"bench":"sim","metric":"creates_per_second","value":4100,"unit":"1/s","target":">= 3000"}
With WORDs, only the benchmark files whose path contains one of them.`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(HELP);
    return;
  }
  const files = ["sim", "relay", "functions", "durable", "test/bench"]
    .flatMap((root) => globSync(`${root}/**/*.bench.ts`))
    .filter((file) => args.length === 0 || args.some((word) => file.includes(word)))
    .sort();
  for (const file of files) {
    const module = (await import(pathToFileURL(path.resolve(file)).href)) as { default: Benchmark };
    const bench = module.default;
    process.stderr.write(`bench ${bench.name} (${file})\n`);
    await bench.run(
      (figure) => console.log(JSON.stringify({ bench: bench.name, ...figure })),
      (message) => process.stderr.write(`  ${bench.name}: ${message}\n`),
    );
  }
}

await main();
