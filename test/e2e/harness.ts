/** End-to-end test support: a stack on ephemeral ports, on the sim or on a real control plane (waits on cluster state are in test/support/cluster-waits.ts). */
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { defaultCacheDir } from "../../cluster/build.ts";
import { startControlPlane, type RunningControlPlane } from "../../cluster/index.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { startOnCluster, startStack, type ClusterStack, type Stack, type StackOptions } from "../../scripts/lib/stack.ts";
import type { RunningSim } from "../../sim/index.ts";
import { waitForObject } from "../support/cluster-waits.ts";
import { HttpCluster, type TestCluster } from "../support/http-cluster.ts";

/** The test controllers (mirror, journal). */
export const FIXTURE_CONTROLLERS = join(import.meta.dirname, "../fixtures/controllers");

/** How long a stack may take to start before the test file gives up (it takes seconds). */
const START_DEADLINE_MS = 120_000;

/**
 * Starts a stack in a temporary folder; `stop()` removes it. A start that hangs (once in
 * CI a relay waited forever for a Worker whose workerd had not come up) fails the test
 * file, naming the step it hung at, and ends its process: a `before` hook has no
 * timeout of its own, and the hung start keeps the event loop alive.
 */
export async function testStack(options: Partial<StackOptions> = {}): Promise<Stack & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-e2e-"));
  let step = "nothing yet";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`the test stack did not start within ${START_DEADLINE_MS / 1000} s; last step: ${step}`));
      setTimeout(() => process.exit(1), 5_000);
    }, START_DEADLINE_MS);
  });
  const starting = startStack({
    kubeconfigPath: join(dir, "kubeconfig"),
    persistDir: join(dir, "do"),
    extraControllerDirs: [FIXTURE_CONTROLLERS],
    ...options,
    progress: (message) => {
      step = message;
      options.progress?.(message);
    },
  });
  const stack = await Promise.race([starting, deadline]).finally(() => clearTimeout(timer));
  const stop = stack.stop.bind(stack);
  return Object.assign(stack, {
    dir,
    async stop(): Promise<void> {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** Calls the relay's TLS front as an in-cluster client would (trusting the front's CA). */
export function frontCall(stack: Pick<ClusterStack, "front">, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const front = stack.front;
  if (!front) throw new Error("the stack serves no front");
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(`${front.url}${path}`, { method, ca: front.caPem, headers: text === undefined ? {} : { "content-type": "application/json" } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") as unknown }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(text);
  });
}

/** Where the end-to-end suites run: the embedded sim (`npm test`) or a real control plane (`npm run test:cluster`). */
export type Target = "sim" | "cluster";

/** The target of this test process: `EDGELOOP_E2E_TARGET=cluster` (set by `npm run test:cluster`), else the sim. */
export const TARGET: Target = process.env.EDGELOOP_E2E_TARGET === "cluster" ? "cluster" : "sim";

/** A stack on either target: the same Worker and relay, the cluster read and written through one contract. */
export interface E2EStack extends ClusterStack {
  readonly target: Target;
  /** The cluster's API: the sim's in-process API, or HTTP to the real API server (errors are the sim's ApiError either way). */
  readonly cluster: TestCluster;
  /** An admin kubeconfig (kubectl, client-node). */
  readonly kubeconfigPath: string;
  /** The sim, on the sim target. */
  readonly sim: RunningSim | undefined;
  /** The real control plane, on the cluster target. */
  readonly controlPlane: RunningControlPlane | undefined;
  readonly dir: string;
}

/**
 * Starts a stack on this process's {@link TARGET}. On the real control plane each test
 * file gets a control plane of its own (fresh, on free ports; nodes named as the sim
 * names them), and edgeloop installed in it as `npm start -- --kubeconfig` installs it.
 * With `EDGELOOP_CLUSTER_RUN_DIR` set (`npm run test:cluster`), the control plane's state
 * folder, its audit log included, is kept there for the least-privilege check.
 */
export async function e2eStack(options: Partial<StackOptions> = {}): Promise<E2EStack> {
  if (TARGET === "sim") {
    const stack = await testStack(options);
    return Object.assign(stack, { target: "sim" as const, cluster: stack.sim.cluster, kubeconfigPath: stack.sim.kubeconfigPath ?? join(stack.dir, "kubeconfig"), controlPlane: undefined });
  }
  return clusterStack(options);
}

async function clusterStack(options: Partial<StackOptions>): Promise<E2EStack> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-e2e-"));
  const stateDir = controlPlaneStateDir(join(dir, "cluster"));
  const nodes = options.nodes ?? 3;
  const controlPlane = await startControlPlane({
    stateDir,
    port: 0,
    nodes: typeof nodes === "number" ? Array.from({ length: nodes }, (_, i) => `sim-node-${i + 1}`) : nodes,
    fresh: true,
    cacheDir: defaultCacheDir(process.env),
    env: process.env,
    ...(options.nodeGraceSeconds ? { nodeGraceSeconds: options.nodeGraceSeconds } : {}),
  });
  try {
    const stack = await startOnCluster({
      persistDir: join(dir, "do"),
      extraControllerDirs: [FIXTURE_CONTROLLERS],
      ...options,
      kubeconfigPath: controlPlane.kubeconfigPath,
    });
    const kc = new KubeConfig();
    kc.loadFromFile(controlPlane.kubeconfigPath);
    const stop = stack.stop.bind(stack);
    return Object.assign(stack, {
      target: "cluster" as const,
      cluster: new HttpCluster(kc),
      kubeconfigPath: controlPlane.kubeconfigPath,
      sim: undefined,
      controlPlane,
      dir,
      async stop(): Promise<void> {
        await stop();
        await controlPlane.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  } catch (error) {
    await controlPlane.stop();
    throw error;
  }
}

/**
 * Where a test's control plane keeps its state: under `EDGELOOP_CLUSTER_RUN_DIR` in `npm run
 * test:cluster` (kept there for the least-privilege check of the run's audit logs), else
 * `fallback`.
 */
export function controlPlaneStateDir(fallback: string): string {
  const runDir = process.env.EDGELOOP_CLUSTER_RUN_DIR;
  return runDir ? mkdtempSync(join(runDir, "cp-")) : fallback;
}

/**
 * Creates namespaces as `kubectl create namespace` does, and on a real control plane
 * waits for the `default` ServiceAccount its controller makes in each: until then the
 * ServiceAccount admission plugin refuses a pod there (`serviceaccount "default" not found`).
 */
export async function createNamespaces(stack: E2EStack, names: readonly string[]): Promise<void> {
  for (const name of names) await stack.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } } as KubeObject);
  if (stack.target !== "cluster") return;
  for (const name of names) await waitForObject(stack.cluster, { apiVersion: "v1", kind: "ServiceAccount" }, name, "default", () => true, 30_000);
}
