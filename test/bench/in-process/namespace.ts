/**
 * A Durable Object namespace binding for the in-process baseline (ADR 0015): `idFromName`
 * and `get`, as the Worker calls them (`functions/bindings.ts`). `get` answers a stub whose
 * method calls reach one instance of the real class per name, created on first use with an
 * {@link InProcessStorage} (in memory, or a file per object below `storageDir`); arguments and results are copied (structured clone) as workerd's
 * RPC copies them. The alarm is a timer in this process. What is not reproduced: the
 * isolate boundary, input/output gates, eviction, and durability (everything is in memory).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { InProcessStorage } from "./storage.ts";

/** A Durable Object class as the Worker bundle exports it. */
export type DurableObjectClass = new (state: unknown, env: unknown) => object;

/** What `idFromName` answers. */
export interface InProcessId {
  readonly name: string;
  toString(): string;
  equals(other: InProcessId): boolean;
}

/** How long before retrying an `alarm()` that threw (workerd retries with backoff). */
const ALARM_RETRY_MS = 1_000;
/** setTimeout's longest delay; a later alarm is re-checked then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One live object: the instance, its storage and its alarm timer. */
interface Live {
  readonly instance: Record<string, unknown>;
  readonly storage: InProcessStorage;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** The namespace of one binding. */
export class InProcessNamespace {
  readonly #Class: DurableObjectClass;
  readonly #env: () => unknown;
  readonly #storageDir: string | undefined;
  readonly #objects = new Map<string, Live>();
  #closed = false;

  /** `env` is read lazily: the env holds this namespace too. `storageDir`: durable storage there, one file per object (in memory when absent). */
  constructor(Class: DurableObjectClass, env: () => unknown, storageDir?: string) {
    this.#Class = Class;
    this.#env = env;
    this.#storageDir = storageDir;
  }

  idFromName(name: string): InProcessId {
    const id: InProcessId = { name, toString: () => name, equals: (other) => other.name === name };
    return id;
  }

  /** A stub: every property is an async method of the object named by `id`. */
  get(id: InProcessId): unknown {
    return new Proxy(
      {},
      {
        get: (_target, property) => {
          // A stub is not a thenable (it is awaited as a value by nobody, but be explicit).
          if (property === "then" || typeof property === "symbol") return undefined;
          return async (...args: unknown[]): Promise<unknown> => {
            const live = this.#live(id.name);
            const method = live.instance[property];
            if (typeof method !== "function") throw new TypeError(`The RPC receiver does not implement the method "${property}".`);
            const result: unknown = await (method as (...a: unknown[]) => unknown).apply(live.instance, structuredClone(args));
            return structuredClone(result);
          };
        },
      },
    );
  }

  /** Stops every alarm timer and frees every database. */
  close(): void {
    this.#closed = true;
    for (const live of this.#objects.values()) {
      clearTimeout(live.timer);
      live.storage.close();
    }
    this.#objects.clear();
  }

  #live(name: string): Live {
    let live = this.#objects.get(name);
    if (live) return live;
    if (this.#closed) throw new Error("the namespace is closed");
    const file = this.#storageDir === undefined ? undefined : join(this.#storageDir, `${createHash("sha256").update(name).digest("hex").slice(0, 32)}.sqlite`);
    const storage = new InProcessStorage((at) => this.#arm(name, at), file);
    const state = {
      id: this.idFromName(name),
      storage,
      blockConcurrencyWhile: <T>(fn: () => Promise<T>): Promise<T> => fn(),
      waitUntil: (promise: Promise<unknown>): void => void promise.catch(() => undefined),
    };
    live = { instance: new this.#Class(state, this.#env()) as Record<string, unknown>, storage, timer: undefined };
    this.#objects.set(name, live);
    const pending = storage.peekAlarm();
    if (pending !== null) this.#arm(name, pending);
    return live;
  }

  #arm(name: string, at: number | null): void {
    // During construction the object is not in the map yet; the listener runs again on its next set.
    const live = this.#objects.get(name);
    if (!live) return;
    clearTimeout(live.timer);
    live.timer = undefined;
    if (at === null || this.#closed) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now()));
    live.timer = setTimeout(() => void this.#fire(name, at), delay);
    // An alarm never keeps the process alive, as it would not keep a test or a relay alive.
    live.timer.unref();
  }

  async #fire(name: string, at: number): Promise<void> {
    const live = this.#objects.get(name);
    if (!live || this.#closed) return;
    live.timer = undefined;
    if (Date.now() < at) return this.#arm(name, at);
    live.storage.takeAlarm();
    const alarm = live.instance.alarm;
    if (typeof alarm !== "function") return;
    try {
      await (alarm as () => Promise<void>).call(live.instance);
    } catch {
      if ((await live.storage.getAlarm()) === null) await live.storage.setAlarm(Date.now() + ALARM_RETRY_MS);
    }
  }
}
