/**
 * Whether the Worker answers, for readiness: told by every call that reached it or not,
 * and by a periodic probe of its `/healthz` (an idle relay makes no calls). When it
 * answers again after failing, the keys backing off meanwhile run at once instead of
 * waiting out backoffs that grew through the outage (up to 30 s: a 30 s outage took 45 s
 * to converge).
 */
import type { Logger } from "../../cli/log.ts";
import type { WorkerClient } from "./worker-client.ts";

/** What holds the keys that failed while the Worker was away (the work queue). */
export interface FailedKeys {
  /** Runs the keys backing off at once; returns how many. */
  retryFailedNow(): number;
}

/** The Worker's reachability. */
export class WorkerHealth {
  readonly #log: Logger;
  #ok = false;
  #stopped = false;
  /** Set while leading: the queue whose failed keys run again when the Worker is back. */
  #failed: FailedKeys | undefined;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Whether the Worker answered last. */
  get ok(): boolean {
    return this.#ok;
  }

  /** Records whether the Worker answered a call. */
  reached(ok: boolean): void {
    if (this.#stopped) return;
    const back = ok && !this.#ok;
    this.#ok = ok;
    if (!back || !this.#failed) return;
    const released = this.#failed.retryFailedNow();
    if (released > 0) this.#log("info", "worker back: retrying keys now", { keys: released });
  }

  /** Asks the Worker's `/healthz`, and says when the answer changed. */
  async probe(worker: Pick<WorkerClient, "healthy">): Promise<void> {
    const ok = await worker.healthy();
    if (ok !== this.#ok) this.#log(ok ? "info" : "warn", ok ? "worker reachable again" : "worker unreachable", {});
    this.reached(ok);
  }

  /** From now on (this relay leads), `keys` that failed run at once when the Worker is back. */
  retryWhenBack(keys: FailedKeys): void {
    this.#failed = keys;
  }

  /** Hears nothing more. */
  stop(): void {
    this.#stopped = true;
  }
}
