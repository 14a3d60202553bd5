/** Benchmark helpers: percentiles, waiting for a condition, a pool of calls, reading metrics, watching creations in-process, a relay process. */
import { RELAY_NODE_OPTIONS } from "../../relay/config.ts";
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleRelay } from "../../scripts/lib/bundle.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import type { SimCluster } from "../../sim/index.ts";

/** The p-th percentile of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** Rounds to 0.1. */
export function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Polls `check` every `intervalMs` (20 by default) until it is true; rejects after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 20): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
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

/** A port free on 127.0.0.1 now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A relay process, running `script` (the bundle from {@link relayBundle}), against the
 * stack's sim and Worker. Its log goes to a file (EDGELOOP_BENCH_RELAY_LOG=FILE, else a
 * temporary one), as a container's goes to its runtime: read through a pipe, the lines
 * would be work for the benchmark's own process, which is the sim's.
 * EDGELOOP_BENCH_LOG_LEVEL=debug logs per-request timings; EDGELOOP_BENCH_PROFILE=DIR
 * writes its CPU profile there.
 */
export async function relayProcess(stack: Stack, script: string): Promise<{ child: ChildProcess; opsUrl: string; metrics(): Promise<string> }> {
  const opsPort = await freePort();
  const logFile = process.env.EDGELOOP_BENCH_RELAY_LOG ?? join(mkdtempSync(join(tmpdir(), "edgeloop-bench-log-")), "relay.log");
  const log = openSync(logFile, "a");
  const child = spawn(join(ROOT, "node_modules/.bin/node"), [...(process.env.EDGELOOP_BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.EDGELOOP_BENCH_PROFILE}`] : []), script, "--worker-url", stack.worker.url, "--kubeconfig", stack.sim.kubeconfigPath ?? "", "--ops-port", String(opsPort), "--api-port", new URL(stack.apiUrl).port, ...(stack.front ? ["--front-port", String(stack.front.port), "--tls-cert", stack.front.certFile, "--tls-key", stack.front.keyFile] : []), "--concurrency", "32", "--log-level", process.env.EDGELOOP_BENCH_LOG_LEVEL ?? "info", "--log-format", "json"], {
    cwd: ROOT,
    env: { ...process.env, EDGELOOP_SECRET: stack.secret, NODE_OPTIONS: RELAY_NODE_OPTIONS },
    stdio: ["ignore", log, "inherit"],
  });
  closeSync(log);
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  await until("the relay process to be ready", async () => await fetch(`${opsUrl}/readyz`).then((r) => r.ok, () => false), 120_000);
  return { child, opsUrl, metrics: async () => (await fetch(`${opsUrl}/metrics`)).text() };
}

