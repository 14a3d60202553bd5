/**
 * `npm run bench [-- PART...]`: runs every `*.bench.ts` (sim/, relay/, functions/,
 * durable/, test/bench/) and prints one JSON line per figure on stdout; progress on stderr.
 * Then writes the results folder (bench/results/: every figure, the machine, a Markdown
 * table per bench and SVG charts); `--from FILE` renders that folder from saved figures
 * without running anything, `--readme` also rewrites the README's "Figures" section.
 */
import { existsSync, globSync, readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { ROOT } from "./lib/controllers.ts";
import { mergeFigures, parseFigures, type Figure } from "./lib/bench-report/figure.ts";
import { gitCommit, parseRunInfo, recordRuns, thisMachine, type RunInfo } from "./lib/bench-report/machine.ts";
import { MACHINE_FILE, readResults, updateReadme, writeResults } from "./lib/bench-report/write.ts";

export type { Figure } from "./lib/bench-report/figure.ts";

/** What a `*.bench.ts` file exports as default. */
export interface Benchmark {
  readonly name: string;
  run(report: (figure: Omit<Figure, "bench">) => void, progress: (message: string) => void): Promise<void>;
}

/** What each benchmark measures, for `--help` (a file not listed here is still run). */
const PARTS: Record<string, string> = {
  sim: "the sim: creates/s over HTTP, list latency at 10,000 pods, watch fan-out",
  relay: "the relay: event-to-applied latency, resync of 10,000 parents, RSS",
  sedna: "Sedna end to end: self-heal latency, 1,000 FL jobs created at once (the word also runs sedna-edge and sedna-gm)",
  "sedna-edge": "Sedna's edge channel: 1,000 upstream-protocol LocalControllers on one stack; one job change fanned out to all, a reconnect storm, status messages/s",
  "sedna-gm": "on a real control plane (needs Go): Sedna FL and JI self-heal to Running, duplicates, CPU and memory, edgeloop beside upstream's GlobalManager v0.7 (when its module can be built)",
  nervex: "NerveX end to end: apply to coordinator Running, replicas API POST latency",
  gang: "gang scheduler end to end: 10,000 pods in groups of 8 on 1,000 nodes vs the default scheduler; pass cost (with gang-peers)",
  "gang-peers": "on a real control plane (needs Go): edgeloop's gang scheduler vs scheduler-plugins' coscheduling and Kubernetes 1.36's native gang scheduling, same nodes and workloads, the deadlocks of scheduler-plugins #117, #713, #930",
  autonomy: "edge autonomy end to end: pod create latency with and without its Pod webhook (unbound, bound), autonomy-duration to 500 pods",
  "channel-transport": "an edge channel's frames relay↔Worker: signed HTTP (per-frame POST, long-polled feed) vs a WebSocket a Durable Object accepts and may hibernate (ADR 0028)",
  hop: "the serverless hop: self-heal and resync through workerd vs the same Worker in the relay's process (ADR 0015)",
  cluster: "on a real control plane (needs Go): Sedna self-heal, gang vs kube-scheduler, relay RSS, NerveX POST, Pod webhook",
  cost: "the monthly Cloudflare bill of three fleets (100 nodes / 2,000 pods / 1 change/s; 1,000 / 20,000 / 10; 5,000 / 150,000 / 50), from measured requests, CPU, Durable Object requests, active time and rows, beside the relay's CPU and memory",
  limits: "Cloudflare's limits measured: per route the heaviest request's CPU ms and bytes, its Durable Object calls, the isolate's heap (capped at half of 128 MB), each Durable Object's requests/s, rows and bytes stored, at 10,000 gang pods, 1,000 FL jobs, 5,000 autonomous nodes, 1,000 LocalControllers",
};

/** The default results folder. */
const RESULTS = path.join(ROOT, "bench/results");

/** Every `*.bench.ts` file, sorted. */
function benchFiles(): string[] {
  return ["sim", "relay", "functions", "durable", "test/bench"].flatMap((root) => globSync(`${root}/**/*.bench.ts`, { cwd: ROOT })).sort();
}

/** A benchmark's part name: its file name without `.bench.ts`. */
function partOf(file: string): string {
  return path.basename(file, ".bench.ts");
}

function help(): string {
  const parts = [...new Set([...Object.keys(PARTS), ...benchFiles().map(partOf)])];
  return `usage: npm run bench -- [--help] [--out DIR] [--readme] [PART...]
       npm run bench -- --from FILE.jsonl [--out DIR] [--readme]

Runs the benchmarks (*.bench.ts) and prints one JSON line per figure on stdout, progress
on stderr:
  {"bench":"sim","metric":"creates_per_second","value":4100,"unit":"1/s","target":">= 3000"}
A point of a curve also carries "series", "x" and "xUnit" (gang's pass cost by groups).
They are measurements, not tests: nothing fails when a target is missed.

Then it writes the results folder (default bench/results/):
  latest.jsonl   every figure; a run of some parts replaces only their figures
  machine.json   the machine (CPU, cores, RAM, OS, Node) and each part's date and commit
  README.md      a table per bench (metric, value, unit, target, met?) and the charts
  *.svg          latency percentiles per bench, throughput, curves (figures with an x)

  --out DIR      write the results there instead of bench/results/
  --from FILE    run nothing: render the results folder from saved JSON lines (the
                 machine from a machine.json beside FILE, when there is one)
  --readme       also rewrite README.md's "Figures" section (between <!-- bench:start -->
                 and <!-- bench:end -->) from the results folder
                 (the same as node scripts/bench-readme.ts)
  --one FILE     run one benchmark file in this process, figures on stdout, nothing
                 written (each PART runs so, in a process of its own)

PART runs only the benchmarks whose file path contains it (default: all of them):
${parts.map((part) => `  ${part.padEnd(7)} ${PARTS[part] ?? `(${part}.bench.ts)`}`).join("\n")}`;
}

const FlagsSchema = z.object({
  one: z.string().min(1).optional(),
  out: z.string().min(1).optional(),
  from: z.string().min(1).optional(),
  readme: z.boolean().optional(),
  help: z.boolean().optional(),
});

/** Runs one benchmark file in this process, printing its figures as JSON lines on stdout and its progress on stderr. */
async function runOne(file: string): Promise<void> {
  const module = (await import(pathToFileURL(path.resolve(ROOT, file)).href)) as { default: Benchmark };
  const bench = module.default;
  process.stderr.write(`bench ${bench.name} (${file})\n`);
  await bench.run(
    (figure) => console.log(JSON.stringify({ bench: bench.name, ...figure } satisfies Figure)),
    (message) => process.stderr.write(`  ${bench.name}: ${message}\n`),
  );
}

/**
 * Runs each part in a process of its own (`--one FILE`), passing its figures on as they
 * come; returns them (those of a part that failed midway too) and the failure. A part
 * run after others in one process inherited their heap (the sim of the Sedna bench ran in
 * a process that had held the scale bench's 100,000 pods) and measured 20–100 % slower.
 */
async function runParts(files: readonly string[]): Promise<{ figures: Figure[]; error?: unknown }> {
  const figures: Figure[] = [];
  for (const file of files) {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--one", file], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      const parsed = line.startsWith("{") ? parseFigures(line) : [];
      figures.push(...parsed);
      console.log(line);
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    if (code !== 0) return { figures, error: new Error(`bench ${file} exited with ${code ?? "a signal"}`) };
  }
  return { figures };
}

/** Renders `dir` from `figures` and says where. */
function render(dir: string, figures: readonly Figure[], info: RunInfo | undefined): void {
  const { files, charts } = writeResults(dir, figures, info);
  process.stderr.write(`bench: wrote ${figures.length} figures and ${charts.length} charts to ${path.relative(process.cwd(), dir) || "."}/ (${files.length} files)\n`);
}

async function main(): Promise<number> {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: { out: { type: "string" }, from: { type: "string" }, readme: { type: "boolean" }, one: { type: "string" }, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (error) {
    console.error(`bench: ${(error as Error).message}\n\n${help()}`);
    return 2;
  }
  const flags = FlagsSchema.safeParse(parsed.values);
  if (!flags.success) {
    console.error(`bench: ${flags.error.issues[0]?.message ?? "invalid flags"}\n\n${help()}`);
    return 2;
  }
  if (flags.data.help === true) {
    console.log(help());
    return 0;
  }
  if (flags.data.one !== undefined) {
    if (!benchFiles().includes(flags.data.one)) {
      console.error(`bench: --one takes a benchmark file (${benchFiles().join(", ")}), not ${flags.data.one}`);
      return 2;
    }
    await runOne(flags.data.one);
    return 0;
  }
  const out = path.resolve(flags.data.out ?? RESULTS);
  const args = parsed.positionals;

  if (flags.data.from !== undefined) {
    if (args.length > 0) {
      console.error(`bench: --from renders saved figures and runs no PART (got ${args.join(" ")})\n\n${help()}`);
      return 2;
    }
    const from = path.resolve(flags.data.from);
    const figures = parseFigures(readFileSync(from, "utf8"));
    const machineFile = path.join(path.dirname(from), MACHINE_FILE);
    render(out, figures, existsSync(machineFile) ? parseRunInfo(readFileSync(machineFile, "utf8")) : undefined);
    if (flags.data.readme === true) updateReadme(path.join(ROOT, "README.md"), out);
    return 0;
  }

  const unknown = args.find((arg) => !benchFiles().some((file) => file.includes(arg)));
  if (unknown !== undefined) {
    console.error(`bench: no benchmark matches "${unknown}"\n\n${help()}`);
    return 2;
  }
  const files = benchFiles().filter((file) => args.length === 0 || args.some((word) => file.includes(word)));
  const run = await runParts(files);
  if (run.figures.length > 0) {
    const saved = readResults(out);
    const info = recordRuns(saved.info, thisMachine(), [...new Set(run.figures.map((figure) => figure.bench))], new Date().toISOString(), gitCommit(ROOT));
    // Another machine's figures are not kept beside this one's (recordRuns kept none of its runs).
    const kept = saved.figures.filter((figure) => info.runs[figure.bench] !== undefined);
    render(out, mergeFigures(kept, run.figures), info);
    if (flags.data.readme === true) updateReadme(path.join(ROOT, "README.md"), out);
  }
  if (run.error !== undefined) throw run.error;
  return 0;
}

process.exitCode = await main();
