/**
 * The relay's engine: informers for what the manifest asks, a work queue of dirty
 * parent keys, signed snapshots to the Worker, plans applied in order, the outbox
 * drained. It knows no controller by name: everything comes from the manifest. This
 * file composes the parts and holds the lifecycle (start, lead, stop).
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Action, KubeObject, Manifest, TypeRef, Trigger } from "../protocol/index.ts";
import type { Logger } from "../cli/log.ts";
import { PlanApplier } from "./apply/applier.ts";
import { EventsDelivery } from "./deliver/events.ts";
import { processKey, type ProcessDeps } from "./deliver/reconciler.ts";
import { EventRouter } from "./route/router.ts";
import { SnapshotDelivery } from "./deliver/snapshots.ts";
import { registerGauges } from "./ops/gauges.ts";
import { Informers } from "./store/caches.ts";
import { DEFAULT_SILENCE_SECONDS } from "./store/cache.ts";
import { KubeClient } from "./kube/client.ts";
import { fetchManifest } from "./deliver/manifest.ts";
import { Metrics } from "./ops/metrics.ts";
import { OutboxDrainer } from "./deliver/outbox.ts";
import { ScopeGuard } from "./apply/guard.ts";
import { WorkQueue } from "./queue/workqueue.ts";
import type { RelatedCaches } from "../protocol/snapshot/caches.ts";
import { WorkerClient, type WorkerTransport } from "./deliver/worker-client.ts";

/** Everything the engine needs, parsed once by the entry point. */
export interface RelayEngineOptions {
  readonly kubeconfig: KubeConfig;
  readonly workerUrl: string;
  readonly secret: string;
  readonly concurrency: number;
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
  readonly log: Logger;
}

/** The engine. */
export class RelayEngine {
  readonly metrics = new Metrics();
  readonly worker: WorkerClient;
  /** The unfiltered caches webhooks' and APIs' `related` objects come from. */
  readonly relatedCaches: RelatedCaches = (kind) => this.#informers.unfiltered(kind);
  readonly #options: RelayEngineOptions;
  readonly #applier: PlanApplier;
  readonly #guard: ScopeGuard;
  readonly #queue: WorkQueue<Trigger>;
  readonly #informers: Informers;
  readonly #router: EventRouter;
  readonly #processing: ProcessDeps;
  readonly #outbox: OutboxDrainer;
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #manifest: Manifest = { version: "v1", controllers: [] };
  #workerOk = false;
  #stopped = false;
  #leading = false;

  constructor(options: RelayEngineOptions) {
    const { kubeconfig, log } = options;
    this.#options = options;
    const client = new KubeClient(kubeconfig, { requests: this.metrics.restClient });
    this.#applier = new PlanApplier(client, undefined, log);
    this.#guard = new ScopeGuard({ client, metrics: this.metrics, log, recordEvent: (event) => this.#applier.applyOne(event) });
    this.worker = new WorkerClient(options.workerUrl, options.secret, undefined, options.transport);
    this.#queue = new WorkQueue<Trigger>({ concurrency: options.concurrency, ratePerSecond: options.maxRate, burst: 2 * options.maxRate, observer: this.metrics.workqueue });
    this.#informers = new Informers(kubeconfig, client, {
      onEvent: (cache, type, object, initial, previous) => this.#router.route(cache, type, object, initial, previous),
      // A relist delivers its changes as events (what it lacks as DELETED, what changed as
      // ADDED or MODIFIED, nothing for what did not): those already marked their parents
      // dirty and reached the events controllers, so a relist resyncs nothing more.
      onResync: (id, reason, changes) => {
        this.metrics.inc(`edgeloop_relists_total{informer="${labelValue(id)}",reason="${reason}"}`);
        log("info", "relisted", { informer: id, reason, ...changes });
      },
      onRestart: (id, reason) => {
        this.metrics.inc(`edgeloop_watch_restarts_total{informer="${labelValue(id)}",reason="${reason}"}`);
        log("info", "watch restarted", { informer: id, reason, silenceSeconds: options.watchSilenceSeconds ?? DEFAULT_SILENCE_SECONDS });
      },
      onError: (id, error) => log("warn", "watch error", { informer: id, error: String(error) }),
    }, { silenceSeconds: options.watchSilenceSeconds ?? DEFAULT_SILENCE_SECONDS });
    const snapshots = new SnapshotDelivery(this.#queue, this.#informers, this.worker);
    const events = new EventsDelivery(this.#queue, this.#informers, this.worker);
    this.#router = new EventRouter(snapshots, events, this.metrics);
    const workerReached = (ok: boolean): void => this.#workerReachable(ok);
    this.#processing = { manifest: () => this.#manifest, snapshots, events, applier: this.#applier, guard: this.#guard, metrics: this.metrics, log, workerReached };
    this.#outbox = new OutboxDrainer({ worker: this.worker, applier: this.#applier, guard: this.#guard, manifest: () => this.#manifest, metrics: this.metrics, log, waitSeconds: options.outboxWaitSeconds });
    registerGauges(this.metrics, { queue: this.#queue, leading: () => this.#leading, cachedObjects: () => this.#informers.cachedObjects });
  }

  /** Caches synced and the Worker reachable. */
  ready(): boolean {
    return this.#workerOk && this.#informers.synced;
  }

  /** The manifest in use. */
  get manifest(): Manifest {
    return this.#manifest;
  }

  /** Every cached object of `kind` (its cache without selectors). */
  objectsOf(kind: TypeRef): KubeObject[] {
    return this.#informers.unfiltered(kind)?.list() ?? [];
  }

  /** Applies one action now (for the front's APIs, whose answer waits for it). */
  applyAction(action: Action): Promise<void> {
    return this.#applier.applyOne(action);
  }

  /**
   * Applies one action of API `api`'s answer, only within `namespace` (the one the
   * request names; none: nothing namespaced) and the kinds its controller declares: the
   * front is unauthenticated, so its caller must not steer a write anywhere else.
   */
  async applyApiAction(action: Action, api: string, namespace: string | undefined): Promise<void> {
    const controller = this.#manifest.controllers.find((c) => c.apis.some((a) => a.name === api));
    if (!controller) throw new Error(`refused: API ${api} is not in the manifest`);
    const resolved = await this.#guard.resolve(action);
    const reason = await this.#guard.check(resolved, controller, { namespace: namespace ?? "" });
    if (reason !== null) throw new Error(`refused: ${reason}`);
    await this.#applier.applyOne(resolved);
  }

  /**
   * Fetches the manifest (retrying until the Worker answers) and starts the informers:
   * enough to serve admission and collect dirty keys. {@link lead} starts the work.
   */
  async start(): Promise<void> {
    await this.#loadManifest(true);
    // Reconciles tell readiness whether the Worker answers, but an idle relay makes none:
    // a probe keeps /readyz honest about a Worker that went away (or came back) meanwhile.
    this.#timers.push(setInterval(() => void this.#probeWorker(), (this.#options.workerProbeSeconds ?? 5) * 1000));
    this.#timers.push(setInterval(() => void this.#loadManifest(false).catch((e: unknown) => this.#options.log("warn", "manifest refresh failed", { error: String(e) })), this.#options.manifestRefreshSeconds * 1000));
  }

  /** Starts reconciling: the work queue, the periodic resync and the outbox loop (the leader only). */
  lead(): void {
    if (this.#stopped || this.#leading) return;
    this.#leading = true;
    this.#queue.start((key, triggers) => processKey(this.#processing, key, triggers));
    // An events controller starts from a full list, marked as one, so that its state can
    // drop what no longer exists (a standby buffers nothing before this: see EventsDelivery).
    for (const controller of this.#manifest.controllers) if (controller.delivery === "events") this.#processing.events.relist(controller);
    // Every key made dirty since the informers started (their initial lists included) is
    // queued already: a standby that takes over starts with the whole backlog.
    if (this.#options.resyncSeconds > 0) this.#timers.push(setInterval(() => this.resyncAll("periodic"), this.#options.resyncSeconds * 1000));
    this.#outbox.start();
  }

  /** Whether this relay reconciles (holds the lease, or runs without election). */
  get leading(): boolean {
    return this.#leading;
  }

  /** Stops the informers, the queue (after the keys in flight) and the outbox loop. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timers.forEach((t) => clearInterval(t));
    const outbox = this.#outbox.stop();
    await this.#informers.stop();
    await this.#queue.stop();
    await outbox;
  }

  /** Marks every parent of every controller dirty (resync, relist). */
  resyncAll(reason: string): void {
    this.#options.log("info", "resync", { reason });
    for (const controller of this.#manifest.controllers) {
      if (controller.delivery === "events") this.#processing.events.relist(controller);
      else this.#processing.snapshots.resync(controller);
    }
  }

  /**
   * Relists every informer (each relist delivers what changed as events) and resyncs
   * every parent now, for SIGHUP: a cache that is wrong in a way no watch error shows is
   * rebuilt, and every controller (events controllers from a full list) looks again.
   */
  relistAll(reason: string): void {
    this.#options.log("info", "relist", { reason, informers: this.#informers.size });
    this.#informers.relist();
    this.resyncAll(reason);
  }

  async #probeWorker(): Promise<void> {
    const ok = await this.worker.healthy();
    if (ok !== this.#workerOk) this.#options.log(ok ? "info" : "warn", ok ? "worker reachable again" : "worker unreachable", {});
    this.#workerReachable(ok);
  }

  /**
   * Records whether the Worker answers; when it answers again after failing, the keys
   * backing off meanwhile run at once instead of waiting out backoffs that grew through
   * the outage (up to 30 s: a 30 s outage took 45 s to converge).
   */
  #workerReachable(ok: boolean): void {
    if (this.#stopped) return;
    const back = ok && !this.#workerOk;
    this.#workerOk = ok;
    if (!back || !this.#leading) return;
    const released = this.#queue.retryFailedNow();
    if (released > 0) this.#options.log("info", "worker back: retrying keys now", { keys: released });
  }

  async #loadManifest(first: boolean): Promise<void> {
    const manifest = await fetchManifest(this.worker, { retry: first, stopped: () => this.#stopped, workerReached: this.#processing.workerReached, log: this.#options.log });
    if (!first && JSON.stringify(manifest) === JSON.stringify(this.#manifest)) return;
    const before = new Set(this.#manifest.controllers.map((c) => c.name));
    this.#manifest = manifest;
    this.#router.use(manifest);
    await this.#informers.ensure(manifest);
    // An events controller new in a refreshed manifest starts from a full list too.
    if (this.#leading) for (const controller of manifest.controllers) if (controller.delivery === "events" && !before.has(controller.name)) this.#processing.events.relist(controller);
    this.#options.log("info", "manifest loaded", { controllers: manifest.controllers.map((c) => c.name), informers: this.#informers.size });
  }
}

/** A Prometheus label value: backslash, quote and newline escaped. */
function labelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
