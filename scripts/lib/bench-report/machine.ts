/**
 * The machine and the run a set of figures came from (`bench/results/machine.json`), so
 * that a report rendered again later (`--from`) still names where they were measured.
 */
import { execFileSync } from "node:child_process";
import { cpus, platform, release, totalmem, type } from "node:os";
import { z } from "zod";

/** The machine, and when and at which commit each bench last ran on it. */
export const RunInfoSchema = z.object({
  machine: z.object({
    cpuModel: z.string(),
    cores: z.number().int(),
    ramGiB: z.number(),
    os: z.string(),
    node: z.string(),
  }),
  /** Per bench: the date (ISO 8601) and the git commit (short, `-dirty` with local changes) of its last run. */
  runs: z.record(z.string(), z.object({ date: z.string(), commit: z.string() })),
});

/** The machine and the runs of its figures. */
export type RunInfo = z.infer<typeof RunInfoSchema>;

/** This machine, as of now. */
export function thisMachine(): RunInfo["machine"] {
  const cores = cpus();
  return {
    cpuModel: cores[0]?.model.trim() ?? "unknown",
    cores: cores.length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()} (${platform()})`,
    node: process.version,
  };
}

/** The current commit of the repository at `root` (short hash, `-dirty` when the tree has changes), or `unknown`. */
export function gitCommit(root: string): string {
  try {
    const hash = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() !== "";
    return dirty ? `${hash}-dirty` : hash;
  } catch {
    return "unknown";
  }
}

/**
 * The run info after running `benches` now: kept runs of other benches when the machine
 * is the same one (a partial run adds to the last full one), else only the new ones.
 */
export function recordRuns(saved: RunInfo | undefined, machine: RunInfo["machine"], benches: readonly string[], date: string, commit: string): RunInfo {
  const same = saved !== undefined && saved.machine.cpuModel === machine.cpuModel && saved.machine.cores === machine.cores && saved.machine.ramGiB === machine.ramGiB;
  const runs = same ? { ...saved.runs } : {};
  for (const bench of benches) runs[bench] = { date, commit };
  return { machine, runs };
}

/** Parses saved run info, or `undefined` when `text` is not one. */
export function parseRunInfo(text: string): RunInfo | undefined {
  try {
    const parsed = RunInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
