/**
 * The embedded local cluster: an in-process Kubernetes API (sim/api), served over HTTP
 * (sim/http) for kubectl and client-node, with the built-in controllers (sim/controllers).
 */
import { SimCluster, type SimClusterOptions } from "./api/sim-cluster.ts";
import type { SimController } from "./contract.ts";
import { publishApiServer } from "./api/kubernetes-service.ts";
import { builtinControllers } from "./controllers/index.ts";
import { scheduler } from "./controllers/scheduler.ts";
import { startApiServer, type ApiServer, type ApiServerOptions } from "./http/server.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { persistCluster, type PersistedState } from "./persistence.ts";
import { resumeRestored } from "./resume.ts";
import { SimFaults } from "./faults/faults.ts";

export { SimCluster } from "./api/sim-cluster.ts";

/** How to start the sim. */
export interface SimOptions extends SimClusterOptions {
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number;
  /** Write a kubeconfig for kubectl here. */
  readonly kubeconfigPath?: string;
  /** Run the built-in controllers (GC, Deployments, scheduler, kubelet, ...). Default true. */
  readonly controllers?: boolean;
  /** Nodes created at start: a count (`sim-node-1` ...) or their names (default 3). */
  readonly nodes?: number | readonly string[];
  /**
   * `nvidia.com/gpu` capacity and allocatable of every node the sim creates at start
   * (default 0: no GPUs). Nodes that already exist (restored with `stateDir`) keep theirs.
   */
  readonly nodeGpus?: number;
  /** Seconds without heartbeat before a node goes NotReady (default 40). */
  readonly nodeGraceSeconds?: number;
  /** Seconds between node heartbeats (default 10). */
  readonly heartbeatSeconds?: number;
  readonly bookmarkIntervalMs?: number;
  readonly log?: ApiServerOptions["log"];
  /**
   * Keep the cluster in this folder across restarts (`npm start`, `npm run sim -- --state`):
   * what it holds is loaded at start, every change is saved. In memory when absent.
   */
  readonly stateDir?: string;
  /** With `stateDir`: at most this long between a change and its write (default 100 ms). */
  readonly stateFlushMs?: number;
  /** Seed of the injected faults' chances (default 1). */
  readonly faultSeed?: number;
}

/** A running sim. */
export interface RunningSim {
  /** `http://127.0.0.1:P`. */
  readonly url: string;
  /** The same API in-process (no HTTP). */
  readonly cluster: SimCluster;
  readonly kubeconfigPath: string | undefined;
  /** Ends every open watch stream; with `cluster.store.history.compact(rv)` it makes clients relist (410 Gone). */
  closeWatches(): number;
  /**
   * Stops the default scheduler from binding, as when kube-scheduler is down: pods created
   * meanwhile stay Pending (other controllers go on) until {@link resumeScheduler}, which
   * tries them all. Nothing happens without the built-in controllers.
   */
  pauseScheduler(): void;
  /** Lets the default scheduler bind again, starting with the pods it held while paused. */
  resumeScheduler(): void;
  /** With `stateDir`: what was loaded at start, and saving (`flush` writes what is pending). */
  readonly state: PersistedState | undefined;
  /** Fault injection into the API server (chaos tests); none until a rule, storm or shaping is added. */
  readonly faults: SimFaults;
  stop(): Promise<void>;
}

/** Starts the sim; resolves once it serves. */
export async function startSim(options: SimOptions = {}): Promise<RunningSim> {
  const cluster = new SimCluster(options);
  const state = options.stateDir ? persistCluster(cluster, { dir: options.stateDir, ...(options.stateFlushMs ? { flushMs: options.stateFlushMs } : {}), ...(options.log ? { log: options.log } : {}) }) : undefined;
  const faults = new SimFaults(options.faultSeed ?? 1);
  faults.attachStore(cluster.store);
  let server: ApiServer;
  try {
    server = await startApiServer(cluster, {
      faults,
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
  } catch (error) {
    state?.close();
    throw error;
  }
  const grace = options.nodeGraceSeconds ?? 40;
  const defaultScheduler = options.controllers === false ? undefined : scheduler();
  const controllers: SimController[] =
    defaultScheduler === undefined
      ? []
      : builtinControllers({ nodes: options.nodes ?? 3, nodeGpus: options.nodeGpus ?? 0, nodeGraceSeconds: grace, heartbeatSeconds: options.heartbeatSeconds ?? Math.min(10, grace / 4) }, defaultScheduler);
  for (const controller of controllers) controller.start(cluster);
  if (state?.restored) await resumeRestored(cluster, controllers.length > 0);
  await publishApiServer(cluster, "127.0.0.1", server.port);
  if (options.kubeconfigPath) writeKubeconfig(options.kubeconfigPath, server.url);
  return {
    url: server.url,
    cluster,
    kubeconfigPath: options.kubeconfigPath,
    closeWatches: () => server.closeWatches(),
    pauseScheduler: () => defaultScheduler?.pause(),
    resumeScheduler: () => defaultScheduler?.resume(),
    state,
    faults,
    async stop(): Promise<void> {
      faults.clear();
      await Promise.all(controllers.map((c) => c.stop()));
      await server.close();
      state?.close();
    },
  };
}
