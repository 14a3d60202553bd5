/**
 * The relay's engine: it builds the stages of the loop and joins each to the next through
 * that stage's typed interface (README.md gives the order), then holds the lifecycle:
 * start (manifest, caches), lead (queue, resync, outbox), stop. It knows no controller by
 * name: everything comes from the manifest.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { KubeObject, Manifest, RelayDecided, TypeRef } from "../protocol/index.ts";
import type { RelatedCache } from "../protocol/snapshot/caches.ts";
import type { Logger } from "../cli/log.ts";
import { PlanApplier } from "./apply/applier.ts";
import { ScopeGuard } from "./apply/guard.ts";
import { ApplySlots } from "./apply/slots.ts";
import { latestTriggers, type QueuedTrigger } from "./deliver/triggers.ts";
import { Narrator } from "./apply/narrate.ts";
import { EdgeChannels, type ChannelListen } from "./channel/channels.ts";
import { EventsDelivery } from "./deliver/events.ts";
import { Manifests } from "./deliver/manifest.ts";
import { OutboxDrainer } from "./deliver/outbox.ts";
import { Reconciler } from "./deliver/reconciler.ts";
import { SnapshotDelivery } from "./deliver/snapshots.ts";
import { httpTransport, WorkerClient, type WorkerTransport } from "./deliver/worker-client.ts";
import { WorkerHealth } from "./deliver/worker-health.ts";
import { Admission } from "./front/admission.ts";
import { ApiGateway } from "./front/api-gateway.ts";
import type { FrontHost, OpsHost, ReadinessCheck } from "./front/servers.ts";
import { KubeClient } from "./kube/client.ts";
import { registerGauges } from "./ops/gauges.ts";
import { Metrics } from "./ops/metrics.ts";
import type { ProcessLabels } from "./ops/process-metrics.ts";
import { WatchReports } from "./ops/watch-reports.ts";
import type { QueueKey } from "./queue/key.ts";
import { WorkQueue } from "./queue/workqueue.ts";
import { OwnStatusWrites } from "./route/echoes.ts";
import { EventRouter } from "./route/router.ts";
import { Caches } from "./store/caches.ts";
import { DeliveredCuts } from "./store/delivered-cuts.ts";
import { DEFAULT_SILENCE_SECONDS } from "./watch/relisting-watch.ts";


/**
 * Reconciles in flight by default: what keeps a link of 100 ms busy at the rate the relay
 * reaches on loopback (Little's law: ~2,000 reconciles/s × 0.1 s = 200), each waiting for
 * its answer, none holding a snapshot the byte budget did not admit.
 */
export const DEFAULT_WORKER_IN_FLIGHT = 256;

/** How often the Worker is probed while it is away. */
const AWAY_PROBE_MS = 1_000;
/** Everything the engine needs, parsed once by the entry point. */
export interface RelayEngineOptions {
  readonly kubeconfig: KubeConfig;
  readonly workerUrl: string;
  readonly secret: string;
  /** Plans of reconciles applied at once (the API server's share). */
  readonly concurrency: number;
  /** Reconciles in flight at once, most of them waiting on the Worker across the link (at least `concurrency`). */
  readonly workerInFlight?: number;
  readonly maxRate: number;
  /** Seconds between full resyncs of every parent; 0: none. */
  readonly resyncSeconds: number;
  /** A watch with no event nor bookmark for this long is restarted from its resourceVersion (default 300). */
  readonly watchSilenceSeconds?: number;
  readonly manifestRefreshSeconds: number;
  readonly outboxWaitSeconds: number;
  /** Seconds between probes of the Worker's `/healthz` for readiness (default 5). */
  readonly workerProbeSeconds?: number;
  /** How requests reach the Worker (HTTP by default; the in-process baseline of ADR 0015 passes its own). */
  readonly transport?: WorkerTransport;
  /** How long an idle HTTP connection to the Worker is kept (default {@link WORKER_KEEP_ALIVE_SECONDS}). */
  readonly workerKeepAliveSeconds?: number;
  /** Where each edge channel listens, by name (`--{name}-port`, `--{name}-host`); a declared channel not here is off. */
  readonly channels?: Readonly<Record<string, ChannelListen>>;
  /** Labels on the process metrics where the process hosts more than the relay (see {@link Metrics}). */
  readonly processLabels?: ProcessLabels;
  /** The families' review code of the webhooks the relay decides itself (`decidedAt: relay`), by name. */
  readonly relayDecided?: RelayDecided;
  readonly log: Logger;
}

/** The engine. */
export class RelayEngine implements OpsHost, FrontHost {
  readonly metrics: Metrics;
  readonly worker: WorkerClient;
  /** Admission webhooks, through the TLS front. */
  readonly admission: Admission;
  /** The controllers' HTTP APIs, through the front. */
  readonly apis: ApiGateway;
  readonly #options: RelayEngineOptions;
  readonly #health: WorkerHealth;
  readonly #manifests: Manifests;
  readonly #caches: Caches;
  readonly #router: EventRouter;
  readonly #queue: WorkQueue<QueueKey, QueuedTrigger>;
  readonly #events: EventsDelivery;
  readonly #reconciler: Reconciler;
  readonly #outbox: OutboxDrainer;
  readonly #channels: EdgeChannels;
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #stopped = false;
  #leading = false;

  constructor(options: RelayEngineOptions) {
    const { kubeconfig, log } = options;
    const metrics = (this.metrics = new Metrics(options.processLabels ? { processLabels: options.processLabels } : {}));
    this.#options = options;
    const client = new KubeClient(kubeconfig, { requests: metrics.restClient });
    this.worker = new WorkerClient(options.workerUrl, options.secret, undefined, options.transport ?? httpTransport(options.workerKeepAliveSeconds));
    this.#health = new WorkerHealth(log, (bindings) => this.#storageLost(bindings));
    this.#manifests = new Manifests(this.worker, this.#health, log);
    // apply: the scope guard, then the applier; told of each action: the echo filter and the narrator.
    const echoes = new OwnStatusWrites();
    const applier = new PlanApplier(client, { log, listeners: [echoes, new Narrator(log, metrics)] });
    const plans = new ScopeGuard({ client, metrics, log, applier });
    // queue, deliver.
    this.#queue = new WorkQueue<QueueKey, QueuedTrigger>({
      concurrency: Math.max(options.concurrency, options.workerInFlight ?? DEFAULT_WORKER_IN_FLIGHT),
      // A key waiting long (the Worker away) keeps each object's last event, every deletion: bounded by the objects, not the events.
      compact: latestTriggers,
      dropped: (reason, count) => metrics.inc("edgeloop_queue_dropped_total", { reason }, count),
      ratePerSecond: options.maxRate,
      burst: 2 * options.maxRate,
      observer: metrics.workqueue,
    });
    const silenceSeconds = options.watchSilenceSeconds ?? DEFAULT_SILENCE_SECONDS;
    const cuts = new DeliveredCuts();
    // watch, store, route: every cache's changes go to the router, which marks keys dirty in the queue or buffers events.
    this.#caches = new Caches(kubeconfig, client, new WatchReports(metrics, log, silenceSeconds), { silenceSeconds });
    this.#events = new EventsDelivery(this.#queue, this.#caches, this.worker, cuts);
    this.#router = new EventRouter({ caches: this.#caches, keys: this.#queue, events: this.#events, echoes, metrics });
    this.#caches.subscribe(this.#router);
    const snapshots = new SnapshotDelivery(this.#caches, this.worker, cuts);
    // The link's wait is not the API server's work: many reconciles wait on the Worker, `concurrency` plans apply at once.
    this.#reconciler = new Reconciler({ manifests: this.#manifests, snapshots, events: this.#events, plans: new ApplySlots(plans, options.concurrency), recorder: applier, claims: this.worker, health: this.#health, metrics, log });
    this.#outbox = new OutboxDrainer({ worker: this.worker, plans, manifests: this.#manifests, metrics, log, waitSeconds: options.outboxWaitSeconds });
    // beside the loop, as the outbox: the edge channels' sockets, their feeds and what peers send, whose actions enter apply/ as plans do.
    this.#channels = new EdgeChannels({ listen: options.channels ?? {}, worker: this.worker, plans, metrics, log, leading: () => this.#leading, waitSeconds: options.outboxWaitSeconds });
    // front.
    const related = (kind: TypeRef): RelatedCache | undefined => this.#caches.unfiltered(kind);
    this.admission = new Admission({ manifests: this.#manifests, related, worker: this.worker, log, workerUp: () => this.#health.ok, ...(options.relayDecided ? { decided: options.relayDecided } : {}) });
    this.apis = new ApiGateway({ manifests: this.#manifests, related, worker: this.worker, plans, metrics, client });
    registerGauges(metrics, { queue: this.#queue, leading: () => this.#leading, cachedObjects: () => this.#caches.cachedObjects, workerUp: () => this.#health.ok });
  }

  /** Caches synced, and the Worker's last signed readiness call (its secret, its Durable Objects) succeeded. */
  ready(): boolean {
    return this.readiness().every((check) => check.failure === undefined);
  }

  /** `/readyz`'s checks: `informer-sync` and `worker` (reachable, and its signed readiness call succeeded). */
  readiness(): readonly ReadinessCheck[] {
    return [
      { name: "informer-sync", failure: this.#caches.synced ? undefined : "informers not synced yet" },
      { name: "worker", failure: this.#health.ready ? undefined : (this.#health.failure ?? "not ready") },
    ];
  }

  /** The manifest in use. */
  get manifest(): Manifest {
    return this.#manifests.manifest;
  }

  /** Every cached object of `kind` (its cache without selectors). */
  objectsOf(kind: TypeRef): KubeObject[] {
    return this.#caches.unfiltered(kind)?.list() ?? [];
  }

  /** `host:port` of each edge channel served, by name. */
  get channelAddresses(): Record<string, string> {
    return this.#channels.addresses;
  }

  /** Whether this relay reconciles (holds the lease, or runs without election). */
  get leading(): boolean {
    return this.#leading;
  }

  /**
   * Fetches the manifest (retrying until the Worker answers) and starts the caches:
   * enough to serve admission and collect dirty keys. {@link lead} starts the work.
   */
  async start(): Promise<void> {
    await this.#loadManifest(true);
    // Reconciles tell readiness whether the Worker answers, but an idle relay makes none:
    // a probe keeps /readyz honest about a Worker that went away (or came back) meanwhile,
    // and is the signed readiness call /readyz reflects: one at once, then every few seconds.
    void this.#health.probe(this.worker);
    this.#timers.push(setInterval(() => void this.#health.probe(this.worker), (this.#options.workerProbeSeconds ?? 5) * 1000));
    // While the Worker is away, every second: its return is seen within one, not five (the keys that failed run then).
    this.#timers.push(setInterval(() => void (this.#health.ok ? undefined : this.#health.probe(this.worker)), AWAY_PROBE_MS));
    this.#timers.push(setInterval(() => void this.#loadManifest(false).catch((e: unknown) => this.#options.log("warn", "manifest refresh failed", { error: String(e) })), this.#options.manifestRefreshSeconds * 1000));
  }

  /** Starts reconciling: the work queue, the periodic resync, the outbox loop and the edge channels' feeds (the leader only). */
  lead(): void {
    if (this.#stopped || this.#leading) return;
    this.#leading = true;
    this.#queue.start(this.#reconciler);
    this.#health.retryWhenBack(this.#queue);
    // An events controller starts from a full list, marked as one, so that its state can
    // drop what no longer exists (a standby buffers nothing before this: see EventsDelivery).
    for (const controller of this.manifest.controllers) if (controller.delivery === "events") this.#events.relist(controller);
    // Every key made dirty since the caches started (their initial lists included) is
    // queued already: a standby that takes over starts with the whole backlog.
    if (this.#options.resyncSeconds > 0) this.#timers.push(setInterval(() => this.resyncAll("periodic"), this.#options.resyncSeconds * 1000));
    this.#outbox.start();
    this.#channels.lead();
  }

  /** Stops the caches, the queue (after the keys in flight), the outbox loop and the edge channels. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#health.stop();
    this.#manifests.stop();
    this.#timers.forEach((t) => clearInterval(t));
    const outbox = this.#outbox.stop();
    const channels = this.#channels.stop();
    await this.#caches.stop();
    await this.#queue.stop();
    await outbox;
    await channels;
  }

  /** Marks every parent of every controller dirty (resync, relist). */
  resyncAll(reason: string): void {
    this.#options.log("info", "resync", { reason });
    this.#router.resync();
  }

  /**
   * Relists every cache (each relist delivers what changed as events) and resyncs every
   * parent now, for SIGHUP: a cache that is wrong in a way no watch error shows is
   * rebuilt, and every controller (events controllers from a full list) looks again.
   */
  relistAll(reason: string): void {
    this.#options.log("info", "relist", { reason, informers: this.#caches.size });
    this.#caches.relist();
    this.resyncAll(reason);
  }

  /**
   * The Worker's Durable Object storage is new (its incarnation changed): the queues and
   * ledgers kept there are empty while the cluster is not. A resync sends every parent
   * again and every events controller a full list, which is what they were built from.
   */
  #storageLost(bindings: readonly string[]): void {
    this.#options.log("warn", "worker Durable Object storage is new: sending the cluster again", { bindings, leading: this.#leading });
    if (this.#leading) this.resyncAll("durable-object-storage-lost");
  }

  async #loadManifest(first: boolean): Promise<void> {
    const before = new Set(this.manifest.controllers.map((c) => c.name));
    const manifest = await this.#manifests.load(first);
    if (!manifest) return;
    this.#router.use(manifest);
    await this.#caches.ensure(manifest);
    await this.#channels.use(manifest);
    // An events controller new in a refreshed manifest starts from a full list too.
    if (this.#leading) for (const controller of manifest.controllers) if (controller.delivery === "events" && !before.has(controller.name)) this.#events.relist(controller);
    this.#options.log("info", "manifest loaded", { controllers: manifest.controllers.map((c) => c.name), informers: this.#caches.size });
  }
}
