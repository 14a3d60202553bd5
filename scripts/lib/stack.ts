/**
 * The whole system on one machine: a cluster (the embedded sim, or a real one from a
 * kubeconfig), the Worker in workerd, the relay pointed at both, and the same install a
 * real cluster gets (the CRDs). Used by `npm start` and the end-to-end tests.
 */
import { randomBytes } from "node:crypto";
import { startRelay, type RelayOptions, type RunningRelay } from "../../relay/index.ts";
import type { Logger } from "../../relay/log.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { installCrds } from "./crds-install.ts";
import { startWorker, type RunningWorker } from "./worker.ts";

/** How to start the stack. */
export interface StackOptions {
  /** Where the sim writes its kubeconfig. */
  readonly kubeconfigPath: string;
  readonly simPort?: number;
  readonly workerPort?: number;
  readonly extraControllerDirs?: readonly string[];
  /** Durable Object state folder (kept across Worker restarts). */
  readonly persistDir?: string;
  readonly secret?: string;
  /** Sim nodes: a count or names. */
  readonly nodes?: number | readonly string[];
  readonly nodeGraceSeconds?: number;
  /** Relay tuning. */
  readonly resyncSeconds?: number;
  readonly concurrency?: number;
  readonly opsPort?: number;
  readonly log?: Logger;
  /** Announces each step (npm start's progress lines). */
  readonly progress?: (step: string) => void;
}

/** A running stack on the sim. */
export interface Stack {
  readonly sim: RunningSim;
  readonly worker: RunningWorker;
  relay: RunningRelay;
  readonly secret: string;
  /** Stops the relay and starts a new one (same settings). */
  restartRelay(): Promise<void>;
  stop(): Promise<void>;
}

/** A running stack on a real cluster (no sim). */
export type ClusterStack = Omit<Stack, "sim">;

/** Starts sim, Worker and relay; resolves when the relay's informers have synced. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const progress = options.progress ?? ((): void => undefined);
  progress("starting the sim cluster");
  const sim = await startSim({ port: options.simPort ?? 0, kubeconfigPath: options.kubeconfigPath, nodes: options.nodes ?? 3, ...(options.nodeGraceSeconds ? { nodeGraceSeconds: options.nodeGraceSeconds } : {}) });
  try {
    const onCluster = await startOnCluster(options);
    return Object.assign(onCluster, {
      sim,
      async stop(): Promise<void> {
        await onCluster.relay.stop();
        await onCluster.worker.stop();
        await sim.stop();
      },
    });
  } catch (error) {
    await sim.stop();
    throw error;
  }
}

/** Starts the Worker and the relay against the cluster of `options.kubeconfigPath`, after installing the CRDs. */
export async function startOnCluster(options: Omit<StackOptions, "simPort" | "nodes" | "nodeGraceSeconds">): Promise<ClusterStack> {
  const progress = options.progress ?? ((): void => undefined);
  const secret = options.secret ?? randomBytes(24).toString("hex");
  const extra = options.extraControllerDirs ?? [];
  progress("bundling the Worker and starting it in workerd");
  const worker = await startWorker({ secret, port: options.workerPort ?? 0, extraControllerDirs: extra, ...(options.persistDir ? { persistDir: options.persistDir } : {}) });
  try {
    progress("installing the CRDs");
    await installCrds(options.kubeconfigPath, extra);
    const relayOptions: RelayOptions = {
      workerUrl: worker.url,
      secret,
      kubeconfigPath: options.kubeconfigPath,
      resyncSeconds: options.resyncSeconds ?? 600,
      concurrency: options.concurrency ?? 16,
      outboxWaitSeconds: 5,
      opsPort: options.opsPort ?? 0,
      ...(options.log ? { log: options.log } : { logLevel: "error" as const }),
    };
    progress("starting the relay and syncing its informers");
    const stack: ClusterStack = {
      worker,
      secret,
      relay: await startRelay(relayOptions),
      async restartRelay(): Promise<void> {
        await stack.relay.stop();
        stack.relay = await startRelay(relayOptions);
      },
      async stop(): Promise<void> {
        await stack.relay.stop();
        await worker.stop();
      },
    };
    return stack;
  } catch (error) {
    await worker.stop();
    throw error;
  }
}
