/**
 * Relay processes for the chaos suite, as deployed (the bundle, its own process, leader
 * election on), pointed at the Worker through the cutting proxy. Replica `relay-a` serves
 * the admission front and the API port; `relay-b`, when started, is a standby.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../../cli/wait.ts";
import { RELAY_ENVIRONMENT, RELAY_NODE_FLAGS } from "../../relay/ops/config.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import { freePort } from "../../cli/ports.ts";

/** Seconds a lease lasts: a killed leader's standby takes over within about this. */
export const LEASE_SECONDS = 3;

/** One relay process. */
export interface RelayProc {
  readonly identity: string;
  readonly child: ChildProcess;
  readonly opsUrl: string;
  metrics(): Promise<string>;
}


/** The preload that steps a relay's wall clock (see clock-preload.ts). */
const CLOCK_PRELOAD = join(import.meta.dirname, "clock-preload.ts");

/**
 * Starts relay `identity` running `script` against the stack's sim and `workerUrl`;
 * resolves once ready. With `clockFile`, its wall clock is the offset that file holds
 * (re-read on SIGUSR2).
 */
export async function startRelayProc(stack: Stack, script: string, workerUrl: string, identity: string, logDir: string, serveFront: boolean, clockFile?: string): Promise<RelayProc> {
  const opsPort = await freePort();
  const log = openSync(join(logDir, `${identity}.log`), "a");
  const front = serveFront && stack.front ? ["--front-port", String(stack.front.port), "--tls-cert", stack.front.certFile, "--tls-key", stack.front.keyFile, "--api-port", new URL(stack.apiUrl).port] : [];
  const preload = clockFile ? ["--import", CLOCK_PRELOAD] : [];
  const args = [...RELAY_NODE_FLAGS, ...preload, script, "--worker-url", workerUrl, "--kubeconfig", stack.sim.kubeconfigPath ?? "", "--ops-port", String(opsPort), ...front, "--concurrency", "16", "--worker-keep-alive-seconds", "4", "--outbox-wait-seconds", "5", "--log-level", "info", "--log-format", "json", "--leader-elect", "--lease-namespace", "default", "--lease-duration-seconds", String(LEASE_SECONDS)];
  const child = spawn(join(ROOT, "node_modules/.bin/node"), args, { cwd: ROOT, env: { ...process.env, EDGELOOP_SECRET: stack.secret, POD_NAME: identity, ...RELAY_ENVIRONMENT, ...(clockFile ? { EDGELOOP_CHAOS_CLOCK_FILE: clockFile } : {}) }, stdio: ["ignore", log, log] });
  closeSync(log);
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  const metrics = async (): Promise<string> => (await fetch(`${opsUrl}/metrics`)).text();
  await waitFor(`${identity} to be ready`, () => fetch(`${opsUrl}/readyz`).then((r) => r.ok, () => false), (ready) => ready, { timeoutMs: 120_000, intervalMs: 100 });
  return { identity, child, opsUrl, metrics };
}

/** SIGKILLs a relay (no lease release, no clean stop) and waits until it is gone. */
export async function killRelay(relay: RelayProc): Promise<void> {
  if (relay.child.exitCode !== null || relay.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => relay.child.once("exit", () => resolve()));
  relay.child.kill("SIGKILL");
  await exited;
}

/** Stops a relay cleanly (SIGTERM: it releases its lease). */
export async function stopRelay(relay: RelayProc): Promise<void> {
  if (relay.child.exitCode !== null || relay.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => relay.child.once("exit", () => resolve()));
  relay.child.kill("SIGTERM");
  await exited;
}
