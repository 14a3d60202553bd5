/**
 * The whole system on one machine: a cluster (the embedded sim, or a real one from a
 * kubeconfig), the Worker in workerd, the relay pointed at both. On the sim the CRDs are
 * installed and the relay uses the sim's kubeconfig (the sim authorizes everything). On a
 * real cluster edgeloop runs as installed (ADR 0019): the CRDs and the relay's
 * ServiceAccount, ClusterRole and leader-election Role that `install-relay` renders are
 * applied with the given (admin) kubeconfig, and the relay runs as that ServiceAccount,
 * elected through a Lease. Used by `npm start` and the end-to-end tests.
 */
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { present, waitFor, WaitTimeout } from "../../cli/wait.ts";
import { KubeClient } from "../../relay/kube/client.ts";
import { readObject } from "./apply.ts";
import { installForLocalRelay, type LocalInstall } from "./install/local-relay.ts";
import { onLoopback, registerLocalWebhooks, removeLocalWebhooks } from "./install/local-webhooks.ts";
import { LEASE_NAME } from "./install/objects.ts";
import { selfSignedCertificate } from "./install/tls.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { startRelay, type RelayOptions, type RunningRelay } from "../../relay/index.ts";
import type { Logger } from "../../cli/log.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { installCrds } from "./crds-install.ts";
import { startWorker, type RunningWorker } from "./worker.ts";
import { freePort } from "../../cli/ports.ts";
import { declaredChannels, localChannels } from "./channels.ts";
import { LinkShaper } from "./link/shaper.ts";
import { loadRelayWebhooks } from "./controllers.ts";
import { relayDecided } from "../../functions/relay-decided.ts";
import { formatLinkShape, type LinkShape } from "./link/spec.ts";
import { serveLinkControl } from "./link/control.ts";

/** How to start the stack. */
export interface StackOptions {
  /** Where the sim writes its kubeconfig. */
  readonly kubeconfigPath: string;
  readonly simPort?: number;
  readonly workerPort?: number;
  readonly extraControllerDirs?: readonly string[];
  /** More Worker variables (wrangler.jsonc `vars`), e.g. a controller family's settings. */
  readonly workerVars?: Readonly<Record<string, string>>;
  /** Durable Object state folder (kept across Worker restarts). */
  readonly persistDir?: string;
  /** The isolate's V8 heap cap in MB (default Cloudflare's 128, `ISOLATE_HEAP_LIMIT_MB`). */
  readonly workerHeapLimitMb?: number;
  /** Serve workerd's V8 inspector on this port (`startWorker`'s `inspectorPort`). */
  readonly workerInspectorPort?: number;
  /** The Worker behind the framing guard (`npm start`): malformed framing a 400, not workerd's 500. */
  readonly guardFraming?: boolean;
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
  /** Each declared edge channel's port on 127.0.0.1, by channel name (0 or absent picks one, kept across relay restarts). */
  readonly channelPorts?: Readonly<Record<string, number>>;
  readonly log?: Logger;
  /** Announces each step (npm start's progress lines). */
  readonly progress?: (step: string) => void;
  /**
   * Serve admission from a local TLS front and register the webhook configurations
   * with a `url` pointing at it (the sim can reach it; a remote cluster cannot). Default:
   * true on the sim, and on a real cluster whose API server is on loopback.
   */
  readonly admissionFront?: boolean;
  /**
   * A real cluster: install the relay's ServiceAccount and RBAC as `install-relay` renders
   * them and run the relay as that ServiceAccount, leader-elected (default true; the sim
   * passes false and gives the relay its own kubeconfig).
   */
  readonly asInstalled?: boolean;
  /** As installed: the namespace (default edgeloop). */
  readonly namespace?: string;
  /**
   * Put the relay–Worker link as deployed between them (`./link/shaper.ts`): the relay
   * dials a shaping proxy in front of the Worker. Absent: the relay dials the Worker.
   */
  readonly link?: LinkShape;
  /** With `link`: serve its control on this Unix socket (`npm run link`). */
  readonly linkControlSocket?: string;
  /** As installed: this relay's leader election (identity default `<host>-<pid>`; lease 15 s, retries every 2 s). */
  readonly leaderElection?: { readonly identity?: string; readonly leaseDurationSeconds?: number; readonly retrySeconds?: number };
}

/** What `startOnCluster` installed for a relay run as its ServiceAccount. */
export interface Installed {
  readonly namespace: string;
  /** `system:serviceaccount:<namespace>:edgeloop-relay`. */
  readonly user: string;
  /** The ServiceAccount's kubeconfig the relay runs with (its token renewed in place); another replica may use it too. */
  readonly relayKubeconfigPath: string;
  /** The Lease the relays elect their leader with. */
  readonly lease: { readonly namespace: string; readonly name: string };
  /** This relay's identity in that Lease. */
  readonly identity: string;
  /** The webhook configurations registered at the local front (removed at stop). */
  readonly webhookConfigurations: readonly string[];
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
  /** Every declared edge channel served, by name: `127.0.0.1:<port>`, what a peer dials (kept across relay restarts). */
  readonly channels: Readonly<Record<string, string>>;
  /** On a real cluster: what was installed, and who the relay is. */
  readonly installed: Installed | undefined;
  /** The shaped link the relay reaches the Worker through, when the stack has one. */
  readonly link: LinkShaper | undefined;
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
    const onCluster = await startOnCluster({ admissionFront: true, ...options, asInstalled: false });
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

/**
 * Starts the Worker and the relay against the cluster of `options.kubeconfigPath`. As
 * installed (the default): installs the CRDs and the relay's access with that kubeconfig
 * and runs the relay as its ServiceAccount; else (the sim) installs the CRDs only.
 */
export async function startOnCluster(options: Omit<StackOptions, "simPort" | "nodes" | "nodeGraceSeconds" | "nodeGpus" | "clusterStateDir" | "simLog">): Promise<ClusterStack> {
  const progress = options.progress ?? ((): void => undefined);
  const secret = options.secret ?? randomBytes(24).toString("hex");
  const extra = options.extraControllerDirs ?? [];
  const asInstalled = options.asInstalled ?? true;
  const { client: admin, server } = adminClient(options.kubeconfigPath);
  // The front's TLS pair, the relay's token and kubeconfig: private, removed at stop.
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-stack-"));
  // Chosen before the Worker starts: the Worker tells pods where the APIs are.
  const apiPort = options.apiPort ? options.apiPort : await freePort();
  const apiAddress = `127.0.0.1:${apiPort}`;
  // Every declared channel served, each on a port chosen now: a peer dials the same address after a relay restart.
  const channels = await localChannels(await declaredChannels(extra), options.channelPorts);
  progress("bundling the Worker and starting it in workerd");
  const worker = await startWorker({ secret, apiAddress, port: options.workerPort ?? 0, extraControllerDirs: extra, ...(options.workerVars ? { vars: options.workerVars } : {}), ...(options.persistDir ? { persistDir: options.persistDir } : {}), ...(options.guardFraming ? { guardFraming: true } : {}), ...(options.workerHeapLimitMb ? { heapLimitMb: options.workerHeapLimitMb } : {}), ...(options.workerInspectorPort ? { inspectorPort: options.workerInspectorPort } : {}) }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  let install: LocalInstall | undefined;
  let relay: RunningRelay | undefined;
  let link: LinkShaper | undefined;
  let linkControl: Server | undefined;
  try {
    if (options.link) {
      const target = new URL(worker.url);
      link = await LinkShaper.start({
        target: { host: target.hostname, port: Number(target.port) },
        shape: options.link,
        onChange: (state) => options.log?.(state.up && !state.fault ? "info" : "warn", state.fault ? `link fault ${state.fault}: every request fails so (npm run link)` : state.up ? "link up: the Worker is reachable again (npm run link)" : "link down: the Worker is an unreachable host (npm run link)", { spec: formatLinkShape(state.shape) }),
      });
      if (options.linkControlSocket) linkControl = await serveLinkControl(options.linkControlSocket, link);
      progress(`the relay reaches the Worker through a shaped link: ${formatLinkShape(options.link)}`);
    }
    if (asInstalled) {
      install = await installForLocalRelay({ adminKubeconfigPath: options.kubeconfigPath, extraControllerDirs: extra, dir, ...(options.namespace ? { namespace: options.namespace } : {}), ...(options.log ? { log: options.log } : {}), progress });
    } else {
      progress("installing the CRDs");
      await installCrds(options.kubeconfigPath, extra);
    }
    const front = (options.admissionFront ?? onLoopback(server)) ? await localFront(dir) : undefined;
    const identity = options.leaderElection?.identity ?? `${hostname()}-${process.pid}`;
    const relayOptions: RelayOptions = {
      ...(front ? { front: { port: front.port, certFile: front.certFile, keyFile: front.keyFile } } : {}),
      api: { port: apiPort, host: "127.0.0.1" },
      channels: Object.fromEntries(channels.map((channel) => [channel.spec.name, { port: channel.port, host: "127.0.0.1" }])),
      workerUrl: link?.url ?? worker.url,
      secret,
      // As installed, the ServiceAccount's kubeconfig: the admin kubeconfig is never the relay's.
      kubeconfigPath: install?.relayKubeconfigPath ?? options.kubeconfigPath,
      resyncSeconds: options.resyncSeconds ?? 600,
      concurrency: options.concurrency ?? 16,
      // workerd closes an idle connection after 5 s (a longer keep-alive would race its close); the framing guard, as Cloudflare's edge, keeps one 400 s.
      ...(options.guardFraming ? {} : { workerKeepAliveSeconds: LOCAL_WORKERD_KEEP_ALIVE_SECONDS }),
      outboxWaitSeconds: 5,
      opsPort: options.opsPort ?? 0,
      // The relay shares this process with Miniflare's driver and, on the sim, the sim: its process metrics say so (ADR 0014).
      processLabels: { shared_with: asInstalled ? "miniflare" : "sim" },
      // As the relay image has them: the families' webhooks decided at the relay (ADR 0034).
      relayDecided: relayDecided(await loadRelayWebhooks()),
      ...(options.log ? { log: options.log } : { logLevel: "error" as const }),
      ...(install
        ? {
            // A relay that loses its Lease stops, as client-go's leader election has the process exit; here the stack starts it again, as the kubelet restarts a container that exited, so that it campaigns anew instead of reconciling without the Lease.
            onLostLeadership: () => void restartAfterLostLease(),
            leaderElection: {
              namespace: install.namespace,
              name: LEASE_NAME,
              identity,
              ...(options.leaderElection?.leaseDurationSeconds ? { leaseDurationSeconds: options.leaderElection.leaseDurationSeconds } : {}),
              ...(options.leaderElection?.retrySeconds ? { retrySeconds: options.leaderElection.retrySeconds } : {}),
            },
          }
        : {}),
    };
    let stopping = false;
    const restartAfterLostLease = async (): Promise<void> => {
      if (stopping) return;
      options.log?.("warn", "the relay lost its Lease: starting it again to campaign anew", { lease: `${install?.namespace ?? ""}/${LEASE_NAME}`, identity });
      try {
        // Lost while it was still starting: the start's own error handling stops it.
        if (!running) return;
        await running.relay.stop().catch(() => undefined);
        if (!stopping) running.relay = await startRelay(relayOptions);
      } catch (error) {
        options.log?.("error", "could not start the relay again after it lost its Lease", { error: (error as Error).message });
      }
    };
    let running: ClusterStack | undefined = undefined;
    progress(`starting the relay and syncing its informers${install ? ` (as ${install.user}; leader election through Lease ${install.namespace}/${LEASE_NAME} as ${identity})` : ""}`);
    relay = await startRelay(relayOptions);
    if (install) progress(await electionOutcome(relay, admin, { namespace: install.namespace, name: LEASE_NAME }, identity));
    const hooks = relay.engine.manifest.controllers.flatMap((c) => c.webhooks);
    let registered: readonly KubeObject[] = [];
    if (front) {
      progress(`registering ${hooks.length} admission webhook(s) at ${relay.frontUrl ?? ""}`);
      registered = await registerLocalWebhooks(admin, hooks, relay.frontUrl ?? "", front.caPem, install?.namespace);
    } else if (hooks.length > 0) {
      progress(`not registering ${hooks.length} admission webhook(s): the API server at ${server} is not on this machine's loopback and cannot call the local front (install-relay registers them with the relay Service)`);
    }
    const frontUrl = relay.frontUrl ?? "";
    const stack: ClusterStack = {
      worker,
      secret,
      relay,
      front: front && relay.frontUrl ? { url: relay.frontUrl, caPem: front.caPem, port: front.port, certFile: front.certFile, keyFile: front.keyFile } : undefined,
      apiUrl: `http://${apiAddress}`,
      channels: Object.fromEntries(channels.map((channel) => [channel.spec.name, channel.address])),
      link,
      installed: install ? { namespace: install.namespace, user: install.user, relayKubeconfigPath: install.relayKubeconfigPath, lease: { namespace: install.namespace, name: LEASE_NAME }, identity, webhookConfigurations: registered.map((o) => o.metadata.name ?? "") } : undefined,
      async restartRelay(): Promise<void> {
        await stack.relay.stop();
        stack.relay = await startRelay(relayOptions);
      },
      async stop(): Promise<void> {
        stopping = true;
        // The API server stops calling the front first: a Fail webhook calling nothing would refuse every write it matches.
        if (registered.length > 0 && install) await removeLocalWebhooks(admin, registered, frontUrl).catch((error: unknown) => options.log?.("warn", "could not remove the webhook configurations", { error: (error as Error).message }));
        await stack.relay.stop();
        install?.stop();
        await closeLink(link, linkControl);
        await worker.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    running = stack;
    return stack;
  } catch (error) {
    await relay?.stop().catch(() => undefined);
    install?.stop();
    await closeLink(link, linkControl);
    await worker.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** What a relay keeps an idle connection to a local workerd reached directly: below the 5 s after which workerd closes it (through the framing guard, the default 60 s). */
export const LOCAL_WORKERD_KEEP_ALIVE_SECONDS = 4;

/** Stops the shaping proxy and its control socket. */
async function closeLink(link: LinkShaper | undefined, control: Server | undefined): Promise<void> {
  await new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
  await link?.stop();
}

/**
 * Once the relay's first campaign has an outcome: it leads, or another replica holds the
 * Lease (this one stands by, serving admission, and takes over when the Lease is
 * released or lapses). A line for the person starting it.
 */
async function electionOutcome(relay: RunningRelay, admin: KubeClient, lease: { namespace: string; name: string }, identity: string): Promise<string> {
  const where = `Lease ${lease.namespace}/${lease.name}`;
  const outcome = async (): Promise<string | undefined> => {
    if (relay.engine.leading) return `the relay leads (${where}, as ${identity})`;
    const found = (await readObject(admin, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: lease } as KubeObject).catch(() => undefined)) as { spec?: { holderIdentity?: string } } | undefined;
    const holder = found?.spec?.holderIdentity;
    return holder && holder !== identity ? `the relay stands by: ${where} is held by ${holder}; it takes over once that is released or lapses` : undefined;
  };
  try {
    return await waitFor("the relay's first campaign to have an outcome", outcome, present, { timeoutMs: 5_000, intervalMs: 50 });
  } catch (error) {
    if (error instanceof WaitTimeout) return `the relay does not lead yet (${where})`;
    throw error;
  }
}

/** A client with the kubeconfig `startOnCluster` was given (the sim's, or a real cluster's admin), and its server. */
function adminClient(kubeconfigPath: string): { readonly client: KubeClient; readonly server: string } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return { client: new KubeClient(kc), server: kc.getCurrentCluster()?.server ?? "" };
}

/** A TLS pair for 127.0.0.1 on a port chosen now and kept across relay restarts. */
async function localFront(dir: string): Promise<{ port: number; certFile: string; keyFile: string; caPem: string }> {
  const tls = await selfSignedCertificate(["127.0.0.1", "localhost"]);
  writeFileSync(join(dir, "tls.crt"), tls.certPem);
  writeFileSync(join(dir, "tls.key"), tls.keyPem, { mode: 0o600 });
  const port = await freePort();
  return { port, certFile: join(dir, "tls.crt"), keyFile: join(dir, "tls.key"), caPem: tls.certPem };
}
