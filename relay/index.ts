/** The relay, startable in-process (npm start, tests) or from relay/main.ts; its stages, in order, are listed in relay/README.md. */
import { KubeConfig } from "@kubernetes/client-node";
import { http1Only } from "./kube/http1.ts";
import { startApiServer, startFront, startOpsServer } from "./front/servers.ts";
import { createLogger, type Level, type Logger } from "../cli/log.ts";
import { KubeClient } from "./kube/client.ts";
import { LeaderElector, type LeaderOptions } from "./ops/leader.ts";
import { LeaderPodLabel, type OwnPod } from "./ops/leader-label.ts";
import { RelayEngine } from "./engine.ts";
import { DEFAULT_SILENCE_SECONDS } from "./watch/relisting-watch.ts";
import type { WorkerTransport } from "./deliver/worker-client.ts";
import type { ChannelListen } from "./channel/channels.ts";
import type { ProcessLabels } from "./ops/process-metrics.ts";
import type { RelayDecided } from "../protocol/index.ts";

/** Relay settings (see relay/ops/config.ts for their parsing and defaults). */
export interface RelayOptions {
  readonly workerUrl: string;
  readonly secret: string;
  /** A kubeconfig file; in-cluster service account when absent. */
  readonly kubeconfigPath?: string;
  /** Plans of reconciles applied to the API server at once (default 16). */
  readonly concurrency?: number;
  /** Reconciles in flight at once, waiting on the Worker across the link (default 256; at least `concurrency`). */
  readonly workerInFlight?: number;
  /** Reconciles per second across all keys (a token bucket, burst twice that). */
  readonly maxRate?: number;
  /** Seconds between full resyncs of every parent; 0: never (default 600). */
  readonly resyncSeconds?: number;
  /** A watch with no event nor bookmark for this long is ended and resumed from its resourceVersion (default 300). */
  readonly watchSilenceSeconds?: number;
  readonly manifestRefreshSeconds?: number;
  readonly outboxWaitSeconds?: number;
  /** Port of /livez, /healthz, /readyz, /metrics (0 picks one). */
  readonly opsPort?: number;
  readonly opsHost?: string;
  /** TLS front for admission: port and PEM files. */
  readonly front?: { readonly port: number; readonly host?: string; readonly certFile: string; readonly keyFile: string };
  /** Plain-HTTP port of the controllers' APIs (for in-cluster clients without TLS). */
  readonly api?: { readonly port: number; readonly host?: string };
  readonly logLevel?: Level;
  readonly log?: Logger;
  /** Run as one of several replicas: reconcile only while holding this Lease. */
  readonly leaderElection?: Omit<LeaderOptions, "leaseDurationSeconds" | "retrySeconds"> & Partial<Pick<LeaderOptions, "leaseDurationSeconds" | "retrySeconds">>;
  /**
   * With leader election, in a cluster: this replica's pod, labelled `edgeloop.dev/leader`
   * while it leads (cleared at start), so that the edge channels' Service reaches the leader only.
   */
  readonly leaderPod?: OwnPod;
  /** Called when the lease is lost (the process entry point exits, as client-go does). */
  readonly onLostLeadership?: () => void;
  /** How requests reach the Worker (HTTP by default; the in-process baseline of ADR 0015 passes its own). */
  readonly transport?: WorkerTransport;
  /** How long an idle HTTP connection to the Worker is kept (default 60 s; a local workerd closes its own after 5 s). */
  readonly workerKeepAliveSeconds?: number;
  /** Where each edge channel the manifest declares listens, by channel name (a channel not here is off). */
  readonly channels?: Readonly<Record<string, ChannelListen>>;
  /**
   * Labels on the standard process metrics when the process hosts more than this relay
   * (npm start: `{ shared_with: "sim" }`), so that no chart reads them as the relay's alone.
   */
  readonly processLabels?: ProcessLabels;
  /**
   * The families' review code of the webhooks the relay decides itself (`decidedAt:
   * relay`), by name: what keeps Pod, Node and Endpoints writes off the link to the Worker
   * (ADR 0034). Without it those webhooks are forwarded like the others.
   */
  readonly relayDecided?: RelayDecided;
}

/** A running relay. */
export interface RunningRelay {
  readonly engine: RelayEngine;
  /** Present with leader election. */
  readonly elector: LeaderElector | undefined;
  /** `http://host:port` of /livez, /healthz, /readyz, /metrics. */
  readonly opsUrl: string;
  readonly frontUrl: string | undefined;
  /** `http://host:port` of the plain-HTTP API port, when served. */
  readonly apiUrl: string | undefined;
  /** `host:port` of each edge channel served, by name (a channel declared by a manifest refresh appears when served). */
  readonly channels: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/** A server the relay started: its port, and how to close it. */
type ClosableServer = Awaited<ReturnType<typeof startApiServer>>;

/** Starts the relay; resolves when its informers have synced. */
export async function startRelay(options: RelayOptions): Promise<RunningRelay> {
  const log = options.log ?? createLogger(options.logLevel ?? "info", "relay");
  const kubeconfig = new KubeConfig();
  if (options.kubeconfigPath) kubeconfig.loadFromFile(options.kubeconfigPath);
  else kubeconfig.loadFromCluster();
  http1Only(kubeconfig);
  const engine = new RelayEngine({
    kubeconfig,
    workerUrl: options.workerUrl,
    secret: options.secret,
    concurrency: options.concurrency ?? 16,
    ...(options.workerInFlight ? { workerInFlight: options.workerInFlight } : {}),
    maxRate: options.maxRate ?? 2_000,
    resyncSeconds: options.resyncSeconds ?? 600,
    watchSilenceSeconds: options.watchSilenceSeconds ?? DEFAULT_SILENCE_SECONDS,
    manifestRefreshSeconds: options.manifestRefreshSeconds ?? 60,
    outboxWaitSeconds: options.outboxWaitSeconds ?? 20,
    log,
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.workerKeepAliveSeconds ? { workerKeepAliveSeconds: options.workerKeepAliveSeconds } : {}),
    ...(options.channels ? { channels: options.channels } : {}),
    ...(options.processLabels ? { processLabels: options.processLabels } : {}),
    ...(options.relayDecided ? { relayDecided: options.relayDecided } : {}),
  });
  const opsHost = options.opsHost ?? "127.0.0.1";
  const ops = await startOpsServer(engine, options.opsPort ?? 0, opsHost);
  let elector: LeaderElector | undefined;
  const label = options.leaderElection && options.leaderPod ? new LeaderPodLabel(new KubeClient(kubeconfig, { requests: engine.metrics.restClient }), options.leaderPod, log) : undefined;
  let front: ClosableServer | undefined;
  let api: ClosableServer | undefined;
  const stop = async (): Promise<void> => {
    await engine.stop();
    await label?.stop();
    await elector?.stop();
    await api?.close();
    await front?.close();
    await ops.close();
  };
  try {
    await engine.start();
    elector = options.leaderElection ? new LeaderElector(new KubeClient(kubeconfig, { requests: engine.metrics.restClient }), { leaseDurationSeconds: 15, retrySeconds: 2, ...options.leaderElection }, log, engine.metrics.leaderElection) : undefined;
    if (elector) {
      // A restarted container keeps its pod's labels: not the leader (yet), so not the channels' endpoint.
      void label?.set(false);
      const lost = (): void => {
        void label?.set(false);
        (options.onLostLeadership ?? ((): void => undefined))();
      };
      void elector.campaign(lost).then(
        () => {
          engine.lead();
          void label?.set(true);
        },
        () => undefined,
      );
    } else engine.lead();
    front = options.front ? await startFront(engine, options.front.port, options.front.host ?? "127.0.0.1", options.front.certFile, options.front.keyFile, log) : undefined;
    api = options.api ? await startApiServer(engine, options.api.port, options.api.host ?? "127.0.0.1", log) : undefined;
  } catch (error) {
    // A start that fails halfway (a port taken) leaves nothing running: no informer, timer or server keeps the process alive.
    await stop().catch(() => undefined);
    throw error;
  }
  const frontUrl = front ? `https://${options.front?.host ?? "127.0.0.1"}:${front.port}` : undefined;
  const apiUrl = api ? `http://${options.api?.host ?? "127.0.0.1"}:${api.port}` : undefined;
  const channels = engine.channelAddresses;
  log("info", "relay ready", { worker: options.workerUrl, ops: `http://${opsHost}:${ops.port}`, ...(frontUrl ? { front: frontUrl } : {}), ...(apiUrl ? { api: apiUrl } : {}), ...(Object.keys(channels).length > 0 ? { channels } : {}) });
  return {
    engine,
    elector,
    opsUrl: `http://${opsHost}:${ops.port}`,
    frontUrl,
    apiUrl,
    get channels() {
      return engine.channelAddresses;
    },
    stop,
  };
}
