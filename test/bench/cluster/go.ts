/**
 * Whether the cluster part can run (Go builds the control plane), and whether the user
 * asked for it by name: without Go the part says so in one line and fails the run only
 * when it was asked for (`npm run bench -- cluster`), not when every part runs.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";

/** `go version`'s answer, or `undefined` when there is no `go` on PATH (or it fails). */
export function goVersion(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const result = spawnSync("go", ["version"], { encoding: "utf8", env });
  return result.error === undefined && result.status === 0 ? result.stdout.trim() : undefined;
}

/** `scripts/bench.ts` flags that take a value (their value is no PART). */
const VALUED_FLAGS = new Set(["--out", "--from", "--one"]);

/**
 * Whether `file` was asked for by name, from the command line of the process that ran
 * this one: `scripts/bench.ts PART...` asked for it when a PART is part of its path (as
 * bench.ts picks files), and not when no PART was given (every part runs). Any other
 * parent (`node scripts/bench.ts --one FILE` run by hand) named the file itself; a parent
 * whose command line cannot be read is taken for a run of every part.
 */
export function askedFor(file: string, parentArgv: readonly string[] | undefined): boolean {
  if (parentArgv === undefined) return false;
  const script = parentArgv.findIndex((arg) => basename(arg) === "bench.ts");
  if (script < 0) return true;
  const parts: string[] = [];
  const args = parentArgv.slice(script + 1);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (VALUED_FLAGS.has(arg)) i += 1;
    else if (!arg.startsWith("-")) parts.push(arg);
  }
  return parts.some((part) => file.includes(part));
}

/** The command line of this process's parent (Linux `/proc`), or `undefined` where it cannot be read. */
export function parentArgv(): string[] | undefined {
  try {
    return readFileSync(`/proc/${process.ppid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "");
  } catch {
    return undefined;
  }
}
