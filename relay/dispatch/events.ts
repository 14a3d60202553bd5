/**
 * Events delivery: an events controller's watch events are buffered in order and sent
 * as one batch per queue run; a relist replaces the buffer with every cached object; a
 * batch the Worker did not take goes back in front of what came meanwhile.
 */
import { kindKey, type ControllerManifest, type Trigger, type WatchEvent } from "../../protocol/index.ts";
import type { Informers } from "../informers.ts";
import type { WorkQueue } from "../queue/workqueue.ts";
import type { WorkerClient } from "../worker-client.ts";
import { EVENTS_KEY, queueKey } from "./keys.ts";
import type { Delivered } from "./snapshots.ts";

interface Pending {
  readonly events: WatchEvent[];
  readonly relist: boolean;
}

/** Events delivery for every events controller. */
export class EventsDelivery {
  readonly #queue: WorkQueue<Trigger>;
  readonly #informers: Informers;
  readonly #worker: WorkerClient;
  readonly #buffers = new Map<string, Pending>();

  constructor(queue: WorkQueue<Trigger>, informers: Informers, worker: WorkerClient) {
    this.#queue = queue;
    this.#informers = informers;
    this.#worker = worker;
  }

  /** Appends one event to the controller's buffer. */
  buffer(controller: ControllerManifest, event: WatchEvent): void {
    let buffer = this.#buffers.get(controller.name);
    if (!buffer) this.#buffers.set(controller.name, (buffer = { events: [], relist: false }));
    buffer.events.push(event);
    this.#queue.add(queueKey(controller.name, EVENTS_KEY));
  }

  /** Replaces the buffer with an ADDED event per cached object, marked as a relist. */
  relist(controller: ControllerManifest): void {
    const events: WatchEvent[] = controller.watches.flatMap((watch) => (this.#informers.forWatch(watch)?.list() ?? []).map((object) => ({ type: "ADDED" as const, kind: kindKey(watch), object, initial: true })));
    this.#buffers.set(controller.name, { events, relist: true });
    this.#queue.add(queueKey(controller.name, EVENTS_KEY));
  }

  /** Sends the buffered events; on failure they go back in front, in order. */
  async send(controller: ControllerManifest): Promise<Delivered> {
    const buffer = this.#buffers.get(controller.name) ?? { events: [], relist: false };
    this.#buffers.delete(controller.name);
    try {
      const plan = await this.#worker.events(controller.name, { controller: controller.name, relist: buffer.relist, events: buffer.events, now: new Date().toISOString() });
      return { plan, parent: undefined };
    } catch (error) {
      const later = this.#buffers.get(controller.name);
      this.#buffers.set(controller.name, { events: [...buffer.events, ...(later?.events ?? [])], relist: buffer.relist || (later?.relist ?? false) });
      throw error;
    }
  }
}
