/**
 * One control-plane process: started with its output appended to a log file of its own,
 * waited for until a health endpoint answers, stopped with SIGTERM and, after a grace
 * period, SIGKILL. The pids of running processes are kept in a file so that a launcher
 * killed with SIGKILL leaves nothing behind for long: the next start ends them first.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { waitFor } from "../cli/wait.ts";

/** A started process. */
export interface Managed {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal) when it ends. */
  readonly exited: Promise<string>;
  /** Whether it has ended. */
  ended(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** What to run. */
export interface ProcessSpec {
  readonly name: string;
  readonly binary: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly cwd?: string;
}

/** Starts `spec`; its stdout and stderr go to its log file. */
export function startProcess(spec: ProcessSpec): Managed {
  const fd = openSync(spec.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(spec.binary, [...spec.args], { stdio: ["ignore", fd, fd], ...(spec.cwd ? { cwd: spec.cwd } : {}) });
  } finally {
    closeSync(fd);
  }
  let done = false;
  const exited = new Promise<string>((resolve) => {
    child.once("error", (error) => {
      done = true;
      resolve(`failed to start: ${error.message}`);
    });
    child.once("exit", (code, signal) => {
      done = true;
      resolve(signal ? `signal ${signal}` : `exit code ${code ?? "?"}`);
    });
  });
  return {
    name: spec.name,
    pid: child.pid ?? -1,
    logFile: spec.logFile,
    exited,
    ended: () => done,
    async stop(graceMs = 5_000): Promise<void> {
      if (done) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The last lines of a log, for an error message. */
export function logTail(file: string, lines = 5): string {
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").trim().split("\n").slice(-lines).join("\n");
}

/** Whether `https://127.0.0.1:port/path` answers 200 (self-signed serving certificates of the components are accepted on loopback). */
export function healthy(port: number, path: string, ca?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET", timeout: 2_000, ...(ca ? { ca } : { rejectUnauthorized: false }) }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}

/** Waits until `check` holds, failing early (with the log's tail) if `process` ends, or after `timeoutMs`. */
export async function waitUntil(process: Managed, what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const read = async (): Promise<boolean> => {
    if (process.ended()) throw new Error(`${process.name} ended (${await process.exited}) before ${what}:\n${logTail(process.logFile)}`);
    return check();
  };
  await waitFor(`${process.name} to become ${what}`, read, (ok) => ok, { timeoutMs, intervalMs: 200, describe: () => `not ${what} (log: ${process.logFile}):\n${logTail(process.logFile)}` });
}

/** The pids file: what a launcher started, so that the next one can end what a SIGKILL left. */
export class PidFile {
  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** Ends every process the file names that still runs a binary of one of `binDirs`; then empties it. */
  endLeftovers(binDirs: readonly string[]): number {
    let ended = 0;
    for (const pid of this.#read()) {
      const cmdline = readCmdline(pid);
      if (binDirs.some((dir) => cmdline?.startsWith(dir))) {
        try {
          process.kill(pid, "SIGKILL");
          ended += 1;
        } catch {
          // Already gone.
        }
      }
    }
    writeFileSync(this.path, "[]\n");
    return ended;
  }

  add(pid: number): void {
    this.#write([...this.#read(), pid]);
  }

  remove(pid: number): void {
    this.#write(this.#read().filter((p) => p !== pid));
  }

  /** Best effort: a state folder removed under a running control plane must not keep its processes from being stopped. */
  #write(pids: readonly number[]): void {
    try {
      writeFileSync(this.path, `${JSON.stringify(pids)}\n`);
    } catch {
      // The folder is gone: nothing left to record into.
    }
  }

  #read(): number[] {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, "utf8"));
      return Array.isArray(parsed) ? parsed.filter((p): p is number => Number.isInteger(p)) : [];
    } catch {
      return [];
    }
  }
}

function readCmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return undefined;
  }
}
