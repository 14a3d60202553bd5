/**
 * The manifest in use, fetched from the Worker. At start the relay has nothing to do
 * without one, so it retries, backing off from 200 ms to 10 s; a periodic refresh fails
 * at once and keeps the manifest in use.
 */
import type { Logger } from "../../cli/log.ts";
import type { Manifest } from "../../protocol/index.ts";
import type { WorkerClient } from "./worker-client.ts";
import type { WorkerHealth } from "./worker-health.ts";

/** The manifest in use, for every stage that reads it. */
export interface ManifestSource {
  readonly manifest: Manifest;
}

/** Holds the manifest and fetches it again. */
export class Manifests implements ManifestSource {
  readonly #worker: Pick<WorkerClient, "manifest">;
  readonly #health: WorkerHealth;
  readonly #log: Logger;
  #manifest: Manifest = { version: "v1", controllers: [] };
  #stopped = false;

  constructor(worker: Pick<WorkerClient, "manifest">, health: WorkerHealth, log: Logger) {
    this.#worker = worker;
    this.#health = health;
    this.#log = log;
  }

  get manifest(): Manifest {
    return this.#manifest;
  }

  /**
   * Fetches the manifest (retrying until the Worker answers when `first`); resolves with
   * it when it differs from the one in use, which it then replaces, else `undefined`.
   */
  async load(first: boolean): Promise<Manifest | undefined> {
    const manifest = await this.#fetch(first);
    if (!first && JSON.stringify(manifest) === JSON.stringify(this.#manifest)) return undefined;
    this.#manifest = manifest;
    return manifest;
  }

  /** Stops a first fetch's retries. */
  stop(): void {
    this.#stopped = true;
  }

  async #fetch(retry: boolean): Promise<Manifest> {
    for (let delay = 200; ; delay = Math.min(delay * 2, 10_000)) {
      try {
        const manifest = await this.#worker.manifest();
        this.#health.reached(true);
        return manifest;
      } catch (error) {
        this.#health.reached(false);
        if (!retry || this.#stopped) throw error;
        this.#log("warn", "worker not reachable, retrying", { error: String(error), retryInMs: delay });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
