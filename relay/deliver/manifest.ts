/**
 * Fetching the manifest from the Worker. At start the relay has nothing to do without
 * one, so it retries, backing off from 200 ms to 10 s; a periodic refresh fails at once
 * and keeps the manifest in use.
 */
import type { Logger } from "../../cli/log.ts";
import type { Manifest } from "../../protocol/index.ts";
import type { WorkerClient } from "./worker-client.ts";

/** How one fetch behaves. */
export interface FetchOptions {
  /** Retry until the Worker answers (the first fetch), unless stopped. */
  readonly retry: boolean;
  readonly stopped: () => boolean;
  /** Told whether the Worker answered (readiness). */
  readonly workerReached: (ok: boolean) => void;
  readonly log: Logger;
}

/** The Worker's manifest. */
export async function fetchManifest(worker: WorkerClient, options: FetchOptions): Promise<Manifest> {
  for (let delay = 200; ; delay = Math.min(delay * 2, 10_000)) {
    try {
      const manifest = await worker.manifest();
      options.workerReached(true);
      return manifest;
    } catch (error) {
      options.workerReached(false);
      if (!options.retry || options.stopped()) throw error;
      options.log("warn", "worker not reachable, retrying", { error: String(error), retryInMs: delay });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
