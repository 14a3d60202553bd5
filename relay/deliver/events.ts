/**
 * Events delivery: an events controller's watch events are buffered in order and sent
 * in batches per queue run (gathered for the watch's `batchMilliseconds`, so that a
 * replacement's deletion, creation and start are one batch; a change of none of the
 * fields the controller declares is not sent at all), each within what the Worker reads (at most
 * {@link BATCH_BYTES} of objects and {@link BATCH_EVENTS} events: a relist of 10,000 pods
 * is about 30 MB); a relist replaces the buffer with every cached object, its first batch
 * marked `relist` and all but its last `partialList`; a batch the Worker did not take goes
 * back in front of what came meanwhile.
 */
import { kindKey, type ControllerManifest, type KubeObject, type WatchEvent } from "../../protocol/index.ts";
import { fromCache, WHOLE, type Projector } from "../../protocol/snapshot/fields.ts";
import { eventsQueueKey, type QueueKey } from "../queue/key.ts";
import type { KeySink } from "../queue/workqueue.ts";
import type { Caches } from "../store/caches.ts";
import type { DeliveredCuts } from "../store/delivered-cuts.ts";
import { sameButVersion } from "../store/same-but-version.ts";
import type { Delivered } from "./snapshots.ts";
import type { QueuedTrigger } from "./triggers.ts";
import type { WorkerClient } from "./worker-client.ts";

/** How the router hands one event on: the state it replaced, and how long its batch may gather. */
export interface BufferOptions {
  /** The object as the cache held it before a MODIFIED event, when it did. */
  readonly previous?: KubeObject | undefined;
  /** The event's watch's `batchMilliseconds` for its type (`route/dirty-keys.ts`): 0 sends at once. */
  readonly batchMilliseconds?: number;
}

/** Where the router hands an events controller's watch events (the events delivery). */
export interface EventSink {
  /**
   * Appends one event to the controller's next batches; false when it was dropped as
   * telling the controller nothing (a change of none of the fields it declares).
   */
  buffer(controller: ControllerManifest, event: WatchEvent, options?: BufferOptions): boolean;
  /** Replaces the controller's buffer with every cached object, as a relist. */
  relist(controller: ControllerManifest): void;
}

interface Pending {
  readonly events: WatchEvent[];
  /** The next batch starts a relist. */
  readonly relist: boolean;
  /** How many events at the front of `events` belong to a relist still being sent. */
  readonly listing: number;
}

/** Bytes of objects in one batch (the Worker reads at most 8 MiB of body). */
export const BATCH_BYTES = 4 * 1024 * 1024;
/** Events in one batch. */
export const BATCH_EVENTS = 5_000;

/**
 * How many events from the front of `events` go in the next batch (at least one, then
 * within the bounds, counting the bytes of each object as `project` gives it), and the
 * batch's events so projected.
 */
export function takeBatch(events: readonly WatchEvent[], project: (event: WatchEvent) => WatchEvent = (event) => event, maxBytes = BATCH_BYTES, maxEvents = BATCH_EVENTS): WatchEvent[] {
  let bytes = 0;
  const batch: WatchEvent[] = [];
  for (const event of events) {
    if (batch.length >= maxEvents) break;
    const projected = project(event);
    bytes += JSON.stringify(projected.object).length;
    if (batch.length > 0 && bytes > maxBytes) break;
    batch.push(projected);
  }
  return batch;
}

/** Events delivery for every events controller. */
export class EventsDelivery implements EventSink {
  readonly #queue: KeySink<QueueKey, QueuedTrigger>;
  readonly #caches: Pick<Caches, "forWatch">;
  readonly #worker: Pick<WorkerClient, "events">;
  readonly #buffers = new Map<string, Pending>();
  readonly #cuts: DeliveredCuts;

  constructor(queue: KeySink<QueueKey, QueuedTrigger>, caches: Pick<Caches, "forWatch">, worker: Pick<WorkerClient, "events">, cuts: DeliveredCuts) {
    this.#queue = queue;
    this.#caches = caches;
    this.#worker = worker;
    this.#cuts = cuts;
  }

  /**
   * Appends one event to the controller's buffer, once the controller has had its first
   * relist (when this relay starts leading): before that the events are covered by the
   * list to come, and a standby relay keeps no buffer that grows until it leads.
   */
  buffer(controller: ControllerManifest, event: WatchEvent, options: BufferOptions = {}): boolean {
    const buffer = this.#buffers.get(controller.name);
    if (!buffer) return true;
    if (event.type === "MODIFIED" && options.previous !== undefined && this.#unchanged(controller, event.kind, options.previous, event.object)) return false;
    buffer.events.push(event);
    this.#queue.addBatched(eventsQueueKey(controller.name), undefined, options.batchMilliseconds ?? 0);
    return true;
  }

  /**
   * Whether the controller would be told nothing new: its watches of the kind declare
   * fields and, cut to them, the two states differ in their resourceVersion at most (a
   * pod's readiness or IP changed, and the controller reads neither).
   */
  #unchanged(controller: ControllerManifest, kind: string, previous: KubeObject, object: KubeObject): boolean {
    const project = this.#cuts.ofKind(controller, kind);
    if (project === WHOLE) return false;
    return sameButVersion(project(previous), project(object));
  }

  /** Replaces the buffer with an ADDED event per cached object, marked as a relist. */
  relist(controller: ControllerManifest): void {
    const events: WatchEvent[] = controller.watches.flatMap((watch) => (this.#caches.forWatch(watch)?.list() ?? []).map((object) => ({ type: "ADDED" as const, kind: kindKey(watch), object, initial: true })));
    this.#buffers.set(controller.name, { events, relist: true, listing: events.length });
    this.#queue.add(eventsQueueKey(controller.name));
  }

  /** How objects of kind `kind` go to `controller` (its watches' fields; see `fromCache`). */
  #projector(controller: ControllerManifest, kind: string): Projector {
    const watch = controller.watches.find((w) => kindKey(w) === kind);
    return fromCache(this.#cuts.ofKind(controller, kind), watch && this.#caches.forWatch(watch));
  }

  /** Sends the next batch of buffered events (more are queued again); on failure they go back in front, in order. */
  async send(controller: ControllerManifest): Promise<Delivered> {
    const buffer = this.#buffers.get(controller.name) ?? { events: [], relist: false, listing: 0 };
    // Each event's object cut to the fields the controller's watches of its kind declare.
    const projectors = new Map<string, Projector>();
    const projectorOf = (kind: string): Projector => {
      let projector = projectors.get(kind);
      if (!projector) {
        projector = this.#projector(controller, kind);
        projectors.set(kind, projector);
      }
      return projector;
    };
    const events = takeBatch(buffer.events, (event) => ({ ...event, object: projectorOf(event.kind)(event.object) }));
    const size = events.length;
    const taken = buffer.events.slice(0, size);
    const listing = Math.max(0, buffer.listing - size);
    // The rest waits, ahead of anything that arrives while this batch is out.
    this.#buffers.set(controller.name, { events: buffer.events.slice(size), relist: false, listing });
    try {
      const plan = await this.#worker.events(controller.name, { controller: controller.name, relist: buffer.relist, partialList: listing > 0, events, now: new Date().toISOString() });
      if ((this.#buffers.get(controller.name)?.events.length ?? 0) > 0) this.#queue.add(eventsQueueKey(controller.name));
      return { plan, parent: undefined, events: taken.length };
    } catch (error) {
      const later = this.#buffers.get(controller.name) ?? { events: [], relist: false, listing: 0 };
      // A relist that began meanwhile replaced what was left: it stands, and the failed batch is moot.
      if (later.relist) throw error;
      this.#buffers.set(controller.name, { events: [...taken, ...later.events], relist: buffer.relist, listing: buffer.listing });
      throw error;
    }
  }
}
