/** Benchmark helpers: percentiles, waiting for a condition, a pool of calls, reading metrics, watching creations in-process, a relay process (and waiting until it is idle), CPU use of the processes of the stack. */
import { waitFor } from "../../cli/wait.ts";
import { RELAY_ENVIRONMENT, RELAY_NODE_FLAGS } from "../../relay/ops/config.ts";
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { bundleRelay } from "../../scripts/lib/bundle.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import { LOCAL_WORKERD_KEEP_ALIVE_SECONDS, type Stack } from "../../scripts/lib/stack.ts";
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import type { RunningSim, SimCluster } from "../../sim/index.ts";
import { freePort } from "../../cli/ports.ts";

/** The p-th percentile of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** Rounds to 0.1. */
export function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Runs `work` on every item, at most `concurrency` at once. */
export async function inPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}

/**
 * The sum of the samples of metric `name` in Prometheus text `text` whose labels include
 * every `label="value"` of `labels` (`edgeloop_reconciles_total`, `{ controller: "gang" }`
 * adds up every result).
 */
export function metricSum(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let sum = 0;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const series = match[2] ?? "";
    if (wanted.every((pair) => series.includes(pair))) sum += Number(match[3]);
  }
  return sum;
}

/** Calls `onAdded` with the commit time of every new object of `type`. */
export function onCreated(cluster: SimCluster, type: TypeRef, onAdded: (object: KubeObject, at: number) => void): () => void {
  return cluster.watch(type, (event) => {
    if (event.type === "ADDED") onAdded(event.object, performance.now());
  });
}

/** Builds the relay bundle (what the image runs) into a temporary folder; returns its path. */
export async function relayBundle(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), "edgeloop-bench-")), "relay.mjs");
  // Minified, as the image ships it; readable names when profiling.
  await bundleRelay(file, { minify: !process.env.EDGELOOP_BENCH_PROFILE });
  return file;
}


/**
 * A relay process, running `script` (the bundle from {@link relayBundle}), against the
 * stack's sim and Worker. Its log goes to a file (EDGELOOP_BENCH_RELAY_LOG=FILE, else a
 * temporary one), as a container's goes to its runtime: read through a pipe, the lines
 * would be work for the benchmark's own process, which is the sim's.
 * EDGELOOP_BENCH_LOG_LEVEL=debug logs per-request timings; EDGELOOP_BENCH_PROFILE=DIR
 * writes its CPU profile there. The relay runs with the image's V8 flags
 * (RELAY_NODE_FLAGS), or with EDGELOOP_BENCH_RELAY_NODE_FLAGS ("" for none) to compare
 * others. `extraArgs` go to the relay as they are (an edge channel's `--{name}-port`).
 */
export async function relayProcess(stack: Pick<Stack, "worker" | "secret" | "front" | "apiUrl"> & { readonly sim: Pick<RunningSim, "kubeconfigPath"> }, script: string, readyTimeoutMs = 120_000, extraArgs: readonly string[] = []): Promise<{ child: ChildProcess; opsUrl: string; logFile: string; metrics(): Promise<string> }> {
  const opsPort = await freePort();
  const logFile = process.env.EDGELOOP_BENCH_RELAY_LOG ?? join(mkdtempSync(join(tmpdir(), "edgeloop-bench-log-")), "relay.log");
  const log = openSync(logFile, "a");
  const child = spawn(join(ROOT, "node_modules/.bin/node"), [...(process.env.EDGELOOP_BENCH_RELAY_NODE_FLAGS !== undefined ? process.env.EDGELOOP_BENCH_RELAY_NODE_FLAGS.split(" ").filter(Boolean) : RELAY_NODE_FLAGS), ...(process.env.EDGELOOP_BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.EDGELOOP_BENCH_PROFILE}`] : []), script, "--worker-url", stack.worker.url, "--kubeconfig", stack.sim.kubeconfigPath ?? "", "--ops-port", String(opsPort), "--api-port", new URL(stack.apiUrl).port, ...(stack.front ? ["--front-port", String(stack.front.port), "--tls-cert", stack.front.certFile, "--tls-key", stack.front.keyFile] : []), "--concurrency", "32", "--worker-keep-alive-seconds", String(LOCAL_WORKERD_KEEP_ALIVE_SECONDS), "--log-level", process.env.EDGELOOP_BENCH_LOG_LEVEL ?? "info", "--log-format", "json", ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, EDGELOOP_SECRET: stack.secret, ...RELAY_ENVIRONMENT },
    stdio: ["ignore", log, "inherit"],
  });
  closeSync(log);
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  await waitFor("the relay process to be ready", async () => await fetch(`${opsUrl}/readyz`).then((r) => r.ok, () => false), (ok) => ok, { timeoutMs: readyTimeoutMs, intervalMs: 20 }).catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return { child, opsUrl, logFile, metrics: async () => (await fetch(`${opsUrl}/metrics`)).text() };
}

/** Waits until the relay (its `/metrics` from `metrics`) has nothing queued nor in flight, twice in a row 250 ms apart. */
export async function relayIdle(metrics: () => Promise<string>, timeoutMs: number): Promise<void> {
  let quiet = 0;
  await waitFor(
    "the relay to be idle",
    async () => {
      const text = await metrics();
      quiet = metricSum(text, "edgeloop_queue_depth") + metricSum(text, "edgeloop_queue_in_flight") === 0 ? quiet + 1 : 0;
      return quiet >= 2;
    },
    (ok) => ok,
    { timeoutMs, intervalMs: 250 },
  );
}

/** Ends a child process (SIGTERM) and waits until it has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
}

/** CPU used since a {@link cpuSample}: by the whole machine (busy share of all its cores, 0..1), this process, and each process named (ms; `undefined` where `/proc` does not tell). */
export interface CpuUse {
  readonly machineBusy: number;
  readonly selfMs: number;
  readonly othersMs: Readonly<Record<string, number | undefined>>;
}

/** A point to measure CPU use from, of this process and of `others` (by name: pid): call the function it returns for the use since. */
export function cpuSample(others: Readonly<Record<string, number | undefined>> = {}): () => CpuUse {
  const before = { machine: machineTimes(), self: process.cpuUsage(), others: Object.fromEntries(Object.entries(others).map(([name, pid]) => [name, processCpuMs(pid)])) };
  return () => {
    const after = machineTimes();
    const self = process.cpuUsage(before.self);
    const othersMs = Object.fromEntries(
      Object.entries(others).map(([name, pid]) => {
        const [was, now] = [before.others[name], processCpuMs(pid)];
        return [name, was === undefined || now === undefined ? undefined : now - was];
      }),
    );
    return { machineBusy: (after.busy - before.machine.busy) / Math.max(1, after.total - before.machine.total), selfMs: (self.user + self.system) / 1000, othersMs };
  };
}

/** The machine's CPU times so far, all cores: busy and in total (ms). */
function machineTimes(): { busy: number; total: number } {
  return cpus().reduce(
    (sum, cpu) => {
      const total = cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq + cpu.times.idle;
      return { busy: sum.busy + total - cpu.times.idle, total: sum.total + total };
    },
    { busy: 0, total: 0 },
  );
}

/** The fields of `/proc/PID/stat` after the command name (state first), or `undefined` (not Linux, or no such process). */
function procStat(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ");
  } catch {
    return undefined;
  }
}

/** The CPU time (user + system, ms) process `pid` has used, from `/proc/PID/stat` (Linux; `undefined` elsewhere). */
function processCpuMs(pid: number | undefined): number | undefined {
  const fields = pid === undefined ? undefined : procStat(pid);
  // utime and stime, in clock ticks (100 per second), are the 12th and 13th fields after the name.
  return fields === undefined ? undefined : (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The pid of a child of this process running `command` (the soak finds workerd the same way). */
export { childPid } from "../../scripts/lib/soak/proc.ts";
