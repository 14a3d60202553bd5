/** `npm start` as a child process, for tests that run the stack as a user does. */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";

const START = join(import.meta.dirname, "../../scripts/start.ts");

/** A started `npm start`: its process, its `edgeloop ready` line and every line it printed. */
export interface NpmStart {
  readonly child: ChildProcess;
  readonly ready: Record<string, unknown>;
  readonly lines: string[];
}

/**
 * Runs `scripts/start.ts` with piped output (so its lines are JSON) and resolves once it
 * prints `edgeloop ready`; rejects with its stderr if it exits first. `ownGroup` puts it
 * in a process group of its own, as a terminal runs a foreground command.
 */
export async function startNpmStart(args: readonly string[], options: { readonly ownGroup?: boolean } = {}): Promise<NpmStart> {
  const child = spawn(process.execPath, [START, ...args], { stdio: ["ignore", "pipe", "pipe"], detached: options.ownGroup ?? false });
  const lines: string[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === "edgeloop ready") resolve(entry);
    });
    child.once("exit", (code) => reject(new Error(`start exited with ${String(code)}: ${stderr}`)));
  });
  return { child, ready, lines };
}

/** Stops it as Ctrl-C does; resolves with its exit code. */
export async function stopNpmStart(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, "exit");
  child.kill("SIGINT");
  const [code] = (await exited) as [number | null];
  return code;
}

/** Every port flag at 0, so a test's stack takes free ports. */
export const FREE_PORTS: readonly string[] = ["--port", "0", "--worker-port", "0", "--ops-port", "0", "--api-port", "0", "--sedna-gm-port", "0"];
