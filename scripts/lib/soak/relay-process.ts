/**
 * The relay as its own process, running the bundle the image ships, against a local
 * stack: so that its memory is measured apart from the sim's (the stack's relay runs
 * inside the sim's process). The bench's relay process (test/bench/util.ts) does the same
 * for benchmarks; scripts may not import test code, hence this one.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../../../cli/wait.ts";
import { RELAY_ENVIRONMENT, RELAY_NODE_FLAGS } from "../../../relay/ops/config.ts";
import { ROOT } from "../controllers.ts";
import type { Stack } from "../stack.ts";
import { freePort } from "../../../cli/ports.ts";

/** A relay process. */
export interface RelayProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:P`: its /metrics, /readyz. */
  readonly opsUrl: string;
  /** Its inspector's port on 127.0.0.1 (started with `--inspect`, for a full GC before each sample). */
  readonly inspectPort: number;
  metrics(): Promise<string>;
  /** Ends it (SIGTERM) and waits until it has exited. */
  stop(): Promise<void>;
}


/** Starts `script` (a relay bundle) against the stack's sim and Worker, its log to `logFile`; resolves once it is ready. */
export async function startRelayProcess(stack: Stack, script: string, logFile: string, readyTimeoutMs = 120_000): Promise<RelayProcess> {
  const opsPort = await freePort();
  const inspectPort = await freePort();
  const log = openSync(logFile, "a");
  const front = stack.front ? ["--front-port", String(stack.front.port), "--tls-cert", stack.front.certFile, "--tls-key", stack.front.keyFile] : [];
  const child = spawn(
    join(ROOT, "node_modules/.bin/node"),
    [...RELAY_NODE_FLAGS, `--inspect=127.0.0.1:${inspectPort}`, script, "--worker-url", stack.worker.url, "--worker-keep-alive-seconds", "4", "--kubeconfig", stack.sim.kubeconfigPath ?? "", "--ops-port", String(opsPort), "--api-port", new URL(stack.apiUrl).port, ...front, "--log-level", "info", "--log-format", "json"],
    // A container's log goes to its runtime, not through a pipe the sim's process would read.
    { cwd: ROOT, env: { ...process.env, EDGELOOP_SECRET: stack.secret, ...RELAY_ENVIRONMENT }, stdio: ["ignore", log, log] },
  );
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  const relay: RelayProcess = {
    child,
    opsUrl,
    inspectPort,
    metrics: async () => (await fetch(`${opsUrl}/metrics`)).text(),
    async stop(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
  const ready = async (): Promise<boolean> => {
    if (child.exitCode !== null) throw new Error(`the relay process exited (${child.exitCode}) before it was ready; its log: ${logFile}`);
    return fetch(`${opsUrl}/readyz`).then((r) => r.ok, () => false);
  };
  try {
    await waitFor(`the relay process to be ready (its log: ${logFile})`, ready, (ok) => ok, { timeoutMs: readyTimeoutMs, intervalMs: 100 });
  } catch (error) {
    await relay.stop();
    throw error;
  }
  return relay;
}
