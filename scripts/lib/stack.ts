/**
 * The whole system on one machine: the sim cluster, the Worker in workerd, the relay
 * pointed at both, and the same install a real cluster gets (the CRDs). Used by
 * `npm start` and the end-to-end tests.
 */
import { randomBytes } from "node:crypto";
import type { KubeObject } from "../../functions/protocol/index.ts";
import { crdOf, uniqueResources } from "../../functions/crd/generate.ts";
import { startRelay, type RunningRelay } from "../../relay/index.ts";
import type { Logger } from "../../relay/log.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { loadControllers } from "./controllers.ts";
import { startWorker, type RunningWorker } from "./worker.ts";

/** How to start the stack. */
export interface StackOptions {
  readonly kubeconfigPath: string;
  readonly simPort?: number;
  readonly workerPort?: number;
  readonly extraControllerDirs?: readonly string[];
  /** Durable Object state folder (kept across Worker restarts). */
  readonly persistDir?: string;
  readonly secret?: string;
  readonly nodes?: number;
  readonly nodeGraceSeconds?: number;
  /** Relay tuning for tests. */
  readonly resyncSeconds?: number;
  readonly concurrency?: number;
  readonly log?: Logger;
}

/** A running stack. */
export interface Stack {
  readonly sim: RunningSim;
  readonly worker: RunningWorker;
  relay: RunningRelay;
  readonly secret: string;
  /** Stops the relay and starts a new one (same settings). */
  restartRelay(): Promise<void>;
  stop(): Promise<void>;
}

/** Applies the CRDs of every controller's custom resources to the sim (what install-relay does on a cluster). */
export async function installCrds(sim: RunningSim, extraControllerDirs: readonly string[] = []): Promise<number> {
  const controllers = await loadControllers(extraControllerDirs);
  const resources = uniqueResources(controllers.flatMap((c) => c.resources ?? []));
  for (const resource of resources) {
    const crd = crdOf(resource) as unknown as KubeObject;
    const existing = await sim.cluster.find({ apiVersion: crd.apiVersion, kind: crd.kind }, undefined, crd.metadata.name ?? "");
    if (existing) await sim.cluster.update({ ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } });
    else await sim.cluster.create(crd);
  }
  return resources.length;
}

/** Starts sim, Worker and relay; resolves when the relay's informers have synced. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const secret = options.secret ?? randomBytes(24).toString("hex");
  const extra = options.extraControllerDirs ?? [];
  const sim = await startSim({ port: options.simPort ?? 0, kubeconfigPath: options.kubeconfigPath, nodes: options.nodes ?? 3, ...(options.nodeGraceSeconds ? { nodeGraceSeconds: options.nodeGraceSeconds } : {}) });
  const worker = await startWorker({ secret, port: options.workerPort ?? 0, extraControllerDirs: extra, ...(options.persistDir ? { persistDir: options.persistDir } : {}) });
  await installCrds(sim, extra);
  const relayOptions = {
    workerUrl: worker.url,
    secret,
    kubeconfigPath: options.kubeconfigPath,
    resyncSeconds: options.resyncSeconds ?? 600,
    concurrency: options.concurrency ?? 16,
    outboxWaitSeconds: 5,
    ...(options.log ? { log: options.log } : { logLevel: "warn" as const }),
  };
  const stack: Stack = {
    sim,
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
      await sim.stop();
    },
  };
  return stack;
}
