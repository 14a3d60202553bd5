/** Runs the real kubectl against a sim (tests). */
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSim, type RunningSim, type SimOptions } from "../../sim/index.ts";

/** Whether kubectl is on PATH (it is on every machine of this workplace). */
export const KUBECTL_AVAILABLE = spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0;

/**
 * The `skip` of a test that runs kubectl: a reason outside CI when kubectl is missing
 * (`npm test` needs nothing but Node), never in CI (`CI=true`), where a missing kubectl
 * fails the run and says so instead of skipping silently.
 */
export const KUBECTL_SKIP: false | string = KUBECTL_AVAILABLE || process.env.CI ? false : "kubectl is not on PATH (in CI this is a failure, not a skip)";

/** A kubectl bound to one kubeconfig. */
export interface Kubectl {
  /** Runs kubectl; resolves with stdout, rejects with stderr on a non-zero exit. */
  (args: readonly string[], input?: string): Promise<string>;
  /** Starts a long-running kubectl (watches); the caller kills it. */
  spawn(args: readonly string[]): ChildProcess;
}

/** kubectl with `KUBECONFIG=kubeconfig`. */
export function kubectlFor(kubeconfig: string): Kubectl {
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const run = (args: readonly string[], input?: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = execFile("kubectl", [...args], { env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`kubectl ${args.join(" ")} failed: ${stderr || error.message}`));
        else resolve(stdout);
      });
      if (input !== undefined) child.stdin?.end(input);
    });
  return Object.assign(run, { spawn: (args: readonly string[]) => spawn("kubectl", [...args], { env, stdio: ["ignore", "pipe", "pipe"] }) });
}

/** What a kubectl run printed and how it exited (for `exec`, the command's own exit code). */
export interface KubectlOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl with `KUBECONFIG=kubeconfig`; resolves whatever the exit code, with both streams. */
export function kubectlOutcome(kubeconfig: string, args: readonly string[], input?: string): Promise<KubectlOutcome> {
  return new Promise((resolve) => {
    const child = execFile("kubectl", [...args], { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

/** A sim in a folder of its own with a kubectl bound to it: what a kubectl test file starts before its tests. */
export interface SimWithKubectl {
  readonly sim: RunningSim;
  readonly kubectl: Kubectl;
  readonly kubeconfig: string;
  /** Stops the sim and removes its folder. */
  stop(): Promise<void>;
}

/** Starts a sim on a free port, its kubeconfig in a temporary folder named after `name`. */
export async function simWithKubectl(name: string, options: Omit<SimOptions, "port" | "kubeconfigPath"> = {}): Promise<SimWithKubectl> {
  const dir = mkdtempSync(join(tmpdir(), `edgeloop-kubectl-${name}-`));
  const kubeconfig = join(dir, "kubeconfig");
  const sim = await startSim({ ...options, port: 0, kubeconfigPath: kubeconfig });
  return {
    sim,
    kubeconfig,
    kubectl: kubectlFor(kubeconfig),
    stop: async () => {
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
