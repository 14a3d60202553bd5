/**
 * The relay's engine: informers for what the manifest asks, a work queue of dirty
 * parent keys, signed snapshots to the Worker, plans applied in order, the outbox
 * drained. It knows no controller by name: everything comes from the manifest.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { kindKey, type Action, refOf, splitKey, type ControllerManifest, type KubeObject, type Manifest, type ObjectRef, type Plan, type Trigger, type Watch, type WatchEvent } from "../protocol/index.ts";
import { PlanApplier } from "./apply.ts";
import { KubeClient } from "./kube/client.ts";
import type { Logger } from "../cli/log.ts";
import { Metrics } from "./metrics.ts";
import { WorkQueue, type Outcome } from "./queue/workqueue.ts";
import { buildSnapshot } from "./snapshot.ts";
import { Cache, cacheId } from "./watch/cache.ts";
import { parentKeys } from "./watch/mapping.ts";
import { WorkerClient, WorkerError } from "./worker-client.ts";

/** Everything the engine needs, parsed once by the entry point. */
export interface RelayEngineOptions {
  readonly kubeconfig: KubeConfig;
  readonly workerUrl: string;
  readonly secret: string;
  readonly concurrency: number;
  readonly maxRate: number;
  readonly resyncSeconds: number;
  readonly manifestRefreshSeconds: number;
  readonly outboxWaitSeconds: number;
  readonly log: Logger;
}

const EVENTS_KEY = "*events*";

/** The engine. */
export class RelayEngine {
  readonly metrics = new Metrics();
  readonly worker: WorkerClient;
  readonly #options: RelayEngineOptions;
  readonly #client: KubeClient;
  readonly #applier: PlanApplier;
  readonly #caches = new Map<string, Cache>();
  readonly #queue: WorkQueue<Trigger>;
  readonly #eventBuffers = new Map<string, { events: WatchEvent[]; relist: boolean }>();
  #manifest: Manifest = { version: "v1", controllers: [] };
  #workerOk = false;
  #stopped = false;
  #leading = false;
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #outboxLoop: Promise<void> | undefined;
  readonly #outboxAbort = new AbortController();

  constructor(options: RelayEngineOptions) {
    this.#options = options;
    this.#client = new KubeClient(options.kubeconfig);
    this.#applier = new PlanApplier(this.#client);
    this.worker = new WorkerClient(options.workerUrl, options.secret);
    this.#queue = new WorkQueue<Trigger>({ concurrency: options.concurrency, ratePerSecond: options.maxRate, burst: 2 * options.maxRate });
    this.metrics.gauge("edgeloop_queue_depth", () => this.#queue.depth);
    this.metrics.gauge("edgeloop_queue_in_flight", () => this.#queue.inFlight);
    this.metrics.gauge("edgeloop_leader", () => (this.#leading ? 1 : 0));
    this.metrics.gauge("process_resident_memory_bytes", () => process.memoryUsage.rss());
    this.metrics.gauge("nodejs_heap_size_used_bytes", () => process.memoryUsage().heapUsed);
    this.metrics.gauge("nodejs_heap_size_total_bytes", () => process.memoryUsage().heapTotal);
    this.metrics.gauge("nodejs_external_memory_bytes", () => process.memoryUsage().external);
    this.metrics.gauge("edgeloop_cached_objects", () => [...this.#caches.values()].reduce((sum, cache) => sum + cache.size, 0));
  }

  /** Caches synced and the Worker reachable. */
  ready(): boolean {
    return this.#workerOk && this.#caches.size > 0 && [...this.#caches.values()].every((c) => c.synced);
  }

  /** The manifest in use. */
  get manifest(): Manifest {
    return this.#manifest;
  }

  /** Every cache serving `kind` (for admission `related`). */
  objectsOf(kind: { apiVersion: string; kind: string }): KubeObject[] {
    const cache = [...this.#caches.values()].find((c) => c.watch.apiVersion === kind.apiVersion && c.watch.kind === kind.kind && !c.watch.labelSelector && !c.watch.fieldSelector);
    return cache?.list() ?? [];
  }

  /** Applies one action now (for the front's APIs, whose answer waits for it). */
  applyAction(action: Action): Promise<void> {
    return this.#applier.applyOne(action);
  }

  /**
   * Fetches the manifest (retrying until the Worker answers) and starts the informers:
   * enough to serve admission and collect dirty keys. {@link lead} starts the work.
   */
  async start(): Promise<void> {
    await this.#loadManifest(true);
    this.#timers.push(setInterval(() => void this.#loadManifest(false).catch((e: unknown) => this.#options.log("warn", "manifest refresh failed", { error: String(e) })), this.#options.manifestRefreshSeconds * 1000));
  }

  /** Starts reconciling: the work queue, the periodic resync and the outbox loop (the leader only). */
  lead(): void {
    if (this.#stopped || this.#leading) return;
    this.#leading = true;
    this.#queue.start((key, triggers) => this.#process(key, triggers));
    // Every key made dirty since the informers started (their initial lists included) is
    // queued already: a standby that takes over starts with the whole backlog.
    this.#timers.push(setInterval(() => this.resyncAll("periodic"), this.#options.resyncSeconds * 1000));
    this.#outboxLoop = this.#drainOutbox();
  }

  /** Whether this relay reconciles (holds the lease, or runs without election). */
  get leading(): boolean {
    return this.#leading;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timers.forEach((t) => clearInterval(t));
    this.#outboxAbort.abort();
    await Promise.all([...this.#caches.values()].map((c) => c.stop()));
    await this.#queue.stop();
    await this.#outboxLoop;
  }

  /** Marks every parent of every controller dirty (resync, relist). */
  resyncAll(reason: string): void {
    this.#options.log("info", "resync", { reason });
    for (const controller of this.#manifest.controllers) {
      if (controller.delivery === "events") {
        this.#relistEvents(controller);
        continue;
      }
      const self = controller.watches.find((w) => w.mapping.by === "self");
      const cache = self && this.#caches.get(cacheId(self));
      for (const parent of cache?.list() ?? []) this.#queue.add(`${controller.name}|${keyOf(parent)}`);
    }
  }

  async #loadManifest(first: boolean): Promise<void> {
    let manifest: Manifest | undefined;
    for (let delay = 200; !manifest; delay = Math.min(delay * 2, 10_000)) {
      try {
        manifest = await this.worker.manifest();
        this.#workerOk = true;
      } catch (error) {
        this.#workerOk = false;
        if (!first || this.#stopped) throw error;
        this.#options.log("warn", "worker not reachable, retrying", { error: String(error), retryInMs: delay });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    if (!first && JSON.stringify(manifest) === JSON.stringify(this.#manifest)) return;
    this.#manifest = manifest;
    await this.#ensureCaches();
    this.#options.log("info", "manifest loaded", { controllers: manifest.controllers.map((c) => c.name), informers: this.#caches.size });
  }

  async #ensureCaches(): Promise<void> {
    const wanted = new Map<string, Watch>();
    for (const controller of this.#manifest.controllers) {
      for (const watch of controller.watches) {
        this.#client.learn(watch, { plural: watch.resource, namespaced: watch.namespaced });
        wanted.set(cacheId(watch), watch);
      }
    }
    for (const [id, cache] of this.#caches) {
      if (!wanted.has(id)) {
        await cache.stop();
        this.#caches.delete(id);
      }
    }
    const starting: Promise<void>[] = [];
    for (const [id, watch] of wanted) {
      if (this.#caches.has(id)) continue;
      const cache = new Cache(watch);
      this.#caches.set(id, cache);
      starting.push(
        cache.start(this.#options.kubeconfig, this.#client, {
          onEvent: (type, object, initial) => this.#onEvent(cache, type, object, initial),
          onResync: () => this.resyncAll(`relist ${id}`),
          onError: (error) => this.#options.log("warn", "watch error", { informer: id, error: String(error) }),
        }),
      );
    }
    await Promise.all(starting);
  }

  #onEvent(cache: Cache, type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, initial: boolean): void {
    this.metrics.inc(`edgeloop_watch_events_total{kind="${cache.watch.kind}",type="${type}"}`);
    for (const controller of this.#manifest.controllers) {
      for (const watch of controller.watches) {
        if (cacheId(watch) !== cache.id) continue;
        if (controller.delivery === "events") {
          this.#bufferEvent(controller, { type, kind: kindKey(watch), object, initial });
          continue;
        }
        const trigger: Trigger = { type, kind: kindKey(watch), object };
        const keys = parentKeys(watch.mapping, object, () => this.#parentsOf(controller));
        for (const key of keys) this.#queue.add(`${controller.name}|${key}`, trigger);
      }
    }
  }

  #parentsOf(controller: ControllerManifest): KubeObject[] {
    const self = controller.watches.find((w) => w.mapping.by === "self");
    return (self && this.#caches.get(cacheId(self))?.list()) ?? [];
  }

  #bufferEvent(controller: ControllerManifest, event: WatchEvent): void {
    let buffer = this.#eventBuffers.get(controller.name);
    if (!buffer) this.#eventBuffers.set(controller.name, (buffer = { events: [], relist: false }));
    buffer.events.push(event);
    this.#queue.add(`${controller.name}|${EVENTS_KEY}`);
  }

  #relistEvents(controller: ControllerManifest): void {
    const events: WatchEvent[] = controller.watches.flatMap((watch) => (this.#caches.get(cacheId(watch))?.list() ?? []).map((object) => ({ type: "ADDED" as const, kind: kindKey(watch), object, initial: true })));
    this.#eventBuffers.set(controller.name, { events, relist: true });
    this.#queue.add(`${controller.name}|${EVENTS_KEY}`);
  }

  async #process(queued: string, triggers: Trigger[]): Promise<Outcome> {
    const bar = queued.indexOf("|");
    const name = queued.slice(0, bar);
    const key = queued.slice(bar + 1);
    const controller = this.#manifest.controllers.find((c) => c.name === name);
    if (!controller) return { kind: "done" };
    const started = performance.now();
    try {
      const { plan, parent } = key === EVENTS_KEY ? await this.#sendEvents(controller) : await this.#sendSnapshot(controller, key, triggers);
      this.#workerOk = true;
      const result = await this.#applier.apply(plan, parent, (action, error) => {
        this.metrics.inc(`edgeloop_apply_errors_total{controller="${name}",action="${action.type}"}`);
        this.#options.log("warn", "action failed for good", { controller: name, key, action: action.type, error: error.message });
      });
      if (!result.ok) {
        this.metrics.inc(`edgeloop_reconciles_total{controller="${name}",result="retry"}`);
        this.#options.log("debug", "plan interrupted, will retry", { controller: name, key, error: result.error });
        return { kind: "retry" };
      }
      this.metrics.observe(name, (performance.now() - started) / 1000);
      this.metrics.inc(`edgeloop_reconciles_total{controller="${name}",result="ok"}`);
      return { kind: "done", ...(plan.requeueAfterSeconds ? { requeueAfterMs: plan.requeueAfterSeconds * 1000 } : {}) };
    } catch (error) {
      this.metrics.inc(`edgeloop_reconciles_total{controller="${name}",result="error"}`);
      if (error instanceof WorkerError) {
        if (error.status === 0) this.#workerOk = false;
        this.#options.log(error.status === 0 ? "warn" : "error", "worker call failed", { controller: name, key, status: error.status, error: error.message });
        return { kind: "retry", ...(error.retryAfterMs ? { afterMs: error.retryAfterMs } : {}) };
      }
      this.#options.log("error", "reconcile failed", { controller: name, key, error: String(error) });
      return { kind: "retry" };
    }
  }

  async #sendSnapshot(controller: ControllerManifest, key: string, triggers: Trigger[]): Promise<{ plan: Plan; parent: ObjectRef | undefined }> {
    const request = buildSnapshot(controller, key, (watch) => this.#caches.get(cacheId(watch)), triggers, new Date());
    const plan = await this.worker.reconcile(controller.name, request);
    const { namespace, name } = splitKey(key);
    const parent = request.parent ? refOf(request.parent) : controller.parent ? { ...controller.parent, name, ...(namespace ? { namespace } : {}) } : undefined;
    return { plan, parent };
  }

  async #sendEvents(controller: ControllerManifest): Promise<{ plan: Plan; parent: ObjectRef | undefined }> {
    const buffer = this.#eventBuffers.get(controller.name) ?? { events: [], relist: false };
    this.#eventBuffers.delete(controller.name);
    try {
      const plan = await this.worker.events(controller.name, { controller: controller.name, relist: buffer.relist, events: buffer.events, now: new Date().toISOString() });
      return { plan, parent: undefined };
    } catch (error) {
      // Not delivered: put the events back in front, in order.
      const later = this.#eventBuffers.get(controller.name);
      this.#eventBuffers.set(controller.name, { events: [...buffer.events, ...(later?.events ?? [])], relist: buffer.relist || (later?.relist ?? false) });
      throw error;
    }
  }

  async #drainOutbox(): Promise<void> {
    let cursor = "0";
    let delay = 200;
    while (!this.#stopped) {
      try {
        const batch = await this.worker.outbox(cursor, this.#options.outboxWaitSeconds, this.#outboxAbort.signal);
        for (const entry of batch.entries) {
          const result = await this.#applier.apply(entry.plan, undefined);
          if (!result.ok) throw new Error(result.error);
          this.metrics.inc(`edgeloop_outbox_entries_total{controller="${entry.controller}"}`);
        }
        // Acknowledged by the next request, only now that everything is applied.
        cursor = batch.cursor;
        delay = 200;
      } catch (error) {
        if (this.#stopped) return;
        this.#options.log("warn", "outbox poll failed", { error: String(error), retryInMs: delay });
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 10_000);
      }
    }
  }
}

function keyOf(object: KubeObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name ?? ""}` : (object.metadata.name ?? "");
}
