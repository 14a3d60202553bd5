/**
 * Writes the results folder: every figure (`latest.jsonl`), the machine and runs
 * (`machine.json`), the Markdown report (`README.md`) and its SVG charts; and the README's
 * "Figures" section from them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { renderCharts, type RenderedChart } from "./charts.ts";
import { figuresToJsonLines, parseFigures, type Figure } from "./figure.ts";
import { parseRunInfo, type RunInfo } from "./machine.ts";
import { z } from "zod";
import { readmeSection, replaceSection, resultsMarkdown, type SoakSummary } from "./markdown.ts";

/** The figures file of a results folder. */
export const FIGURES_FILE = "latest.jsonl";
/** The machine and runs file of a results folder. */
export const MACHINE_FILE = "machine.json";
/** Chart files this report owns (and replaces): the soak's own chart is left alone. */
const CHART_FILE = /^(latency-|throughput|curve-).*\.svg$/;

/** The soak's files in a results folder (written by `npm run soak`). */
export const SOAK_FILE = "soak.jsonl";
export const SOAK_CHART = "soak-rss.svg";

const SoakRun = z.object({ kind: z.literal("run"), minutes: z.number(), date: z.string(), commit: z.string() });
const SoakVerdict = z.object({ kind: z.literal("verdict"), process: z.string(), judged: z.boolean().default(true), outcome: z.string(), slopeMiBPerHour: z.number(), riseMiB: z.number() });

/** The last soak of a results folder, or `undefined` when it has none (or an unreadable one). */
export function readSoak(dir: string): SoakSummary | undefined {
  const file = join(dir, SOAK_FILE);
  if (!existsSync(file) || !existsSync(join(dir, SOAK_CHART))) return undefined;
  const lines = readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      return undefined;
    }
  });
  const run = lines.map((line) => SoakRun.safeParse(line)).find((parsed) => parsed.success)?.data;
  if (run === undefined) return undefined;
  const verdicts = lines.flatMap((line) => {
    const parsed = SoakVerdict.safeParse(line);
    return parsed.success ? [{ ...parsed.data, process: parsed.data.judged ? parsed.data.process : `${parsed.data.process} (not judged)` }] : [];
  });
  return { date: run.date, minutes: run.minutes, commit: run.commit, verdicts, chart: SOAK_CHART };
}

/** What a results folder holds, as saved (empty when it holds nothing yet). */
export function readResults(dir: string): { figures: Figure[]; info: RunInfo | undefined } {
  const figuresPath = join(dir, FIGURES_FILE);
  const machinePath = join(dir, MACHINE_FILE);
  return {
    figures: existsSync(figuresPath) ? parseFigures(readFileSync(figuresPath, "utf8")) : [],
    info: existsSync(machinePath) ? parseRunInfo(readFileSync(machinePath, "utf8")) : undefined,
  };
}

/** Writes the figures, the run info, the charts and the Markdown report to `dir`; returns the files written. */
export function writeResults(dir: string, figures: readonly Figure[], info: RunInfo | undefined): { files: string[]; charts: RenderedChart[] } {
  mkdirSync(dir, { recursive: true });
  const charts = renderCharts(figures);
  const wanted = new Set(charts.map((chart) => chart.file));
  for (const stale of readdirSync(dir).filter((file) => CHART_FILE.test(file) && !wanted.has(file))) rmSync(join(dir, stale));
  const files: string[] = [];
  const write = (file: string, content: string): void => {
    writeFileSync(join(dir, file), content);
    files.push(join(dir, file));
  };
  write(FIGURES_FILE, figuresToJsonLines(figures));
  if (info !== undefined) write(MACHINE_FILE, `${JSON.stringify(info, null, 2)}\n`);
  for (const chart of charts) write(chart.file, chart.svg);
  write("README.md", resultsMarkdown(figures, info, charts, readSoak(dir)));
  return { files, charts };
}

/** Rewrites the generated "Figures" section of `readmePath` from the results in `dir` (linked relative to the README). */
export function updateReadme(readmePath: string, dir: string): void {
  const { figures, info } = readResults(dir);
  const section = readmeSection(figures, info, relative(dirname(readmePath), dir).split("\\").join("/"), renderCharts(figures));
  writeFileSync(readmePath, replaceSection(readFileSync(readmePath, "utf8"), section));
}
