/**
 * The whole system on one machine: a cluster (the embedded sim, or a real one from a
 * kubeconfig), the Worker in workerd, the relay pointed at both, and the same install a
 * real cluster gets (the CRDs). Used by `npm start` and the end-to-end tests.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeClient } from "../../relay/kube/client.ts";
import { applyObject } from "./apply.ts";
import { webhookConfigurations } from "./install/objects.ts";
import { selfSignedCertificate } from "./install/tls.ts";
import type { WebhookSpec } from "../../protocol/index.ts";
import { startRelay, type RelayOptions, type RunningRelay } from "../../relay/index.ts";
import type { Logger } from "../../cli/log.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { installCrds } from "./crds-install.ts";
import { startWorker, type RunningWorker } from "./worker.ts";
import { freePort } from "../../cli/ports.ts";

/** How to start the stack. */
export interface StackOptions {
  /** Where the sim writes its kubeconfig. */
  readonly kubeconfigPath: string;
  readonly simPort?: number;
  readonly workerPort?: number;
  readonly extraControllerDirs?: readonly string[];
  /** More Worker variables (wrangler.jsonc `vars`), e.g. `EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS`. */
  readonly workerVars?: Readonly<Record<string, string>>;
  /** Durable Object state folder (kept across Worker restarts). */
  readonly persistDir?: string;
  readonly secret?: string;
  /** Sim nodes: a count or names. */
  readonly nodes?: number | readonly string[];
  readonly nodeGraceSeconds?: number;
  /** `nvidia.com/gpu` on every node the sim creates (0: none). */
  readonly nodeGpus?: number;
  /** Keep the sim's cluster in this folder across restarts (in memory when absent). */
  readonly clusterStateDir?: string;
  /** The sim's own log (restores, state warnings). */
  readonly simLog?: Logger;
  /** Relay tuning. */
  readonly resyncSeconds?: number;
  readonly concurrency?: number;
  readonly opsPort?: number;
  /** The relay's plain-HTTP API port on 127.0.0.1 (0 or absent picks one, kept across relay restarts). */
  readonly apiPort?: number;
  readonly log?: Logger;
  /** Announces each step (npm start's progress lines). */
  readonly progress?: (step: string) => void;
  /**
   * Serve admission from a local TLS front and register the webhook configurations
   * with a `url` pointing at it (the sim can reach it; a remote cluster cannot). Default:
   * true on the sim, false on a real cluster.
   */
  readonly admissionFront?: boolean;
}

/** A running stack on the sim. */
export interface Stack {
  readonly sim: RunningSim;
  readonly worker: RunningWorker;
  relay: RunningRelay;
  readonly secret: string;
  /** The relay's local TLS front (admission webhooks, controllers' APIs) and its CA, when served. */
  readonly front: { readonly url: string; readonly caPem: string; readonly port: number; readonly certFile: string; readonly keyFile: string } | undefined;
  /** `http://127.0.0.1:P`: the controllers' APIs over plain HTTP (what the Worker's pods are told as `host:port`). */
  readonly apiUrl: string;
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
  const sim = await startSim({
    port: options.simPort ?? 0,
    kubeconfigPath: options.kubeconfigPath,
    nodes: options.nodes ?? 3,
    ...(options.nodeGraceSeconds ? { nodeGraceSeconds: options.nodeGraceSeconds } : {}),
    ...(options.nodeGpus ? { nodeGpus: options.nodeGpus } : {}),
    ...(options.clusterStateDir ? { stateDir: options.clusterStateDir } : {}),
    ...(options.simLog ? { log: options.simLog } : {}),
  });
  try {
    const onCluster = await startOnCluster({ admissionFront: true, ...options });
    // Its own stop also removes the front's TLS folder (a private key): keep it, then stop the sim.
    const stopOnCluster = onCluster.stop.bind(onCluster);
    return Object.assign(onCluster, {
      sim,
      async stop(): Promise<void> {
        await stopOnCluster();
        await sim.stop();
      },
    });
  } catch (error) {
    await sim.stop();
    throw error;
  }
}

/** Starts the Worker and the relay against the cluster of `options.kubeconfigPath`, after installing the CRDs. */
export async function startOnCluster(options: Omit<StackOptions, "simPort" | "nodes" | "nodeGraceSeconds" | "nodeGpus" | "clusterStateDir" | "simLog">): Promise<ClusterStack> {
  const progress = options.progress ?? ((): void => undefined);
  const secret = options.secret ?? randomBytes(24).toString("hex");
  const extra = options.extraControllerDirs ?? [];
  // Chosen before the Worker starts: the Worker tells pods where the APIs are.
  const apiPort = options.apiPort ? options.apiPort : await freePort();
  const apiAddress = `127.0.0.1:${apiPort}`;
  progress("bundling the Worker and starting it in workerd");
  const worker = await startWorker({ secret, apiAddress, port: options.workerPort ?? 0, extraControllerDirs: extra, ...(options.workerVars ? { vars: options.workerVars } : {}), ...(options.persistDir ? { persistDir: options.persistDir } : {}) });
  try {
    progress("installing the CRDs");
    await installCrds(options.kubeconfigPath, extra);
    const front = options.admissionFront ? await localFront() : undefined;
    const relayOptions: RelayOptions = {
      ...(front ? { front: { port: front.port, certFile: front.certFile, keyFile: front.keyFile } } : {}),
      api: { port: apiPort, host: "127.0.0.1" },
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
    const relay = await startRelay(relayOptions);
    if (front) {
      const hooks = relay.engine.manifest.controllers.flatMap((c) => c.webhooks);
      progress(`registering ${hooks.length} admission webhook(s) at ${relay.frontUrl ?? ""}`);
      await registerWebhooks(options.kubeconfigPath, hooks, relay.frontUrl ?? "", front.caPem);
    }
    const stack: ClusterStack = {
      worker,
      secret,
      relay,
      front: front && relay.frontUrl ? { url: relay.frontUrl, caPem: front.caPem, port: front.port, certFile: front.certFile, keyFile: front.keyFile } : undefined,
      apiUrl: `http://${apiAddress}`,
      async restartRelay(): Promise<void> {
        await stack.relay.stop();
        stack.relay = await startRelay(relayOptions);
      },
      async stop(): Promise<void> {
        await stack.relay.stop();
        await worker.stop();
        front?.remove();
      },
    };
    return stack;
  } catch (error) {
    await worker.stop();
    throw error;
  }
}

/** A TLS pair for 127.0.0.1 on a port chosen now and kept across relay restarts. */
async function localFront(): Promise<{ port: number; certFile: string; keyFile: string; caPem: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-front-"));
  const tls = await selfSignedCertificate(["127.0.0.1", "localhost"]);
  writeFileSync(join(dir, "tls.crt"), tls.certPem);
  writeFileSync(join(dir, "tls.key"), tls.keyPem, { mode: 0o600 });
  const port = await freePort();
  return { port, certFile: join(dir, "tls.crt"), keyFile: join(dir, "tls.key"), caPem: tls.certPem, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Creates or updates the webhook configurations of `hooks`, calling the front at `frontUrl`. */
async function registerWebhooks(kubeconfigPath: string, hooks: readonly WebhookSpec[], frontUrl: string, caPem: string): Promise<void> {
  if (hooks.length === 0) return;
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = new KubeClient(kc);
  for (const object of webhookConfigurations(hooks, (hook) => ({ url: `${frontUrl}/admission/${hook.name}` }), caPem)) await applyObject(client, object);
}

