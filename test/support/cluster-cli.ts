/** `npm run cluster` (cluster/main.ts) as a test runs it: JSON log lines, waited on until its `control plane ready` line. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const MAIN = join(import.meta.dirname, "../../cluster/main.ts");

/** Starts a control plane with its state in `dir`, with `args`; stdout and stderr piped. */
export function launchCluster(dir: string, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, [MAIN, "--state", dir, "--log-format", "json", ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

/** Resolves with the `control plane ready` log line (its kubeconfig...); rejects, with its stderr, if it exits first. */
export function clusterReady(child: ChildProcess): Promise<Record<string, unknown>> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve, reject) => {
    if (!child.stdout) return reject(new Error("the control plane's stdout is not piped"));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === "control plane ready") resolve(entry);
    });
    child.once("exit", (code) => reject(new Error(`npm run cluster exited (${code}) before it was ready: ${stderr}`)));
  });
}
