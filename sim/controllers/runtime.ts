/**
 * What every built-in controller runs on: a deduplicating key queue processed one key
 * at a time (client-go's workqueue, minus rate limiting) and cancellable timers.
 *
 * The controllers share the API server's thread here, where a cluster runs them in other
 * processes: a queue starts on the next turn of the event loop and yields to it between
 * keys, so requests already waiting are answered first and the API's latency is not the
 * scheduler's and the kubelet's work.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError } from "../contract.ts";

/** A queue of keys: a key waiting is queued once; keys are processed in order, one at a time. */
export class KeyQueue {
  readonly #pending = new Set<string>();
  readonly #timers = new Map<string, { readonly due: number; readonly timer: ReturnType<typeof setTimeout> }>();
  readonly #process: (key: string) => Promise<void>;
  readonly #onError: (key: string, error: unknown) => void;
  #running = false;
  #stopped = false;
  #idle: Promise<void> = Promise.resolve();

  constructor(process: (key: string) => Promise<void>, onError: (key: string, error: unknown) => void = () => undefined) {
    this.#process = process;
    this.#onError = onError;
  }

  /** Marks `key` dirty. */
  add(key: string): void {
    if (this.#stopped) return;
    this.#pending.add(key);
    if (!this.#running) {
      this.#running = true;
      this.#idle = nextTurn().then(() => this.#drain());
    }
  }

  /** Marks `key` dirty after `ms` (one timer per key: the earliest wins). */
  addAfter(key: string, ms: number): void {
    if (this.#stopped) return;
    const due = Date.now() + Math.max(0, ms);
    const pending = this.#timers.get(key);
    if (pending && pending.due <= due) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, Math.max(0, ms));
    this.#timers.set(key, { due, timer });
  }

  /** Stops processing and cancels timers; resolves when the key in progress is done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pending.clear();
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await this.#idle;
  }

  async #drain(): Promise<void> {
    try {
      while (!this.#stopped && this.#pending.size > 0) {
        const key = this.#pending.values().next().value as string;
        this.#pending.delete(key);
        try {
          await this.#process(key);
        } catch (error) {
          this.#onError(key, error);
          // Conflicts and races with other writers settle on a retry.
          if (!this.#stopped) this.addAfter(key, isConflict(error) ? 5 : 200);
        }
        if (this.#pending.size > 0) await nextTurn();
      }
    } finally {
      this.#running = false;
    }
  }
}

/** True for a 409 (stale write) from the API. */
export function isConflict(error: unknown): boolean {
  return error instanceof ApiError && error.code === 409;
}

/** True for a 404. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.code === 404;
}

/** Runs `write`, treating 404 (already gone) as done. */
export async function ignoreNotFound<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export type Obj = Record<string, unknown>;

/** The object as a plain record (empty for anything else). */
export function obj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

/** The array value (empty for anything else). */
export function arr(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map(obj) : [];
}

/** `namespace/name`. */
export function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`;
}

/** Splits `namespace/name`. */
export function splitNsKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** RFC 3339 without fractions, as Kubernetes writes times. */
export function now(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

/** Whether a pod has finished for good. */
export function terminal(pod: KubeObject): boolean {
  const phase = obj((pod as Obj).status).phase;
  return phase === "Succeeded" || phase === "Failed";
}

/** Whether a pod's Ready condition is True. */
export function podReady(pod: KubeObject): boolean {
  return arr(obj((pod as Obj).status).conditions).some((c) => c.type === "Ready" && c.status === "True");
}

/** Resolves after the I/O callbacks already waiting have run (the event loop's check phase). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
