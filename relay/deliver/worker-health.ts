/**
 * Whether the Worker answers, and whether it is ready. Answers: told by every call that
 * reached it or not, and by the periodic probe (an idle relay makes no calls); when it
 * answers again after failing, the keys backing off meanwhile run at once instead of
 * waiting out backoffs that grew through the outage (up to 30 s: a 30 s outage took 45 s
 * to converge). Ready: the probe's signed readiness call succeeded, so the secret matches
 * and every Durable Object namespace answered. `/readyz` checked only the unsigned
 * `/healthz`: it said ready while every signed call failed, or a Durable Object was dead.
 * The probe's last answer is what `/readyz` reads: kubelet's probes never reach the Worker.
 * Each answer names the incarnation of every Durable Object namespace's storage: one that
 * changes is storage the Worker lost (wiped, recreated), told to `storageLost` so that the
 * relay sends again what that storage was built from.
 */
import type { Logger } from "../../cli/log.ts";
import type { Readiness } from "../../protocol/index.ts";
import { workerAway, type WorkerClient } from "./worker-client.ts";

/** What holds the keys that failed while the Worker was away (the work queue). */
export interface FailedKeys {
  /** Runs the keys backing off at once; returns how many. */
  retryFailedNow(): number;
}

/** The Worker's reachability. */
export class WorkerHealth {
  readonly #log: Logger;
  /** Whether the Worker answered last; undefined until anything was asked of it. */
  #ok: boolean | undefined = undefined;
  /** Why the last readiness call failed; undefined when it succeeded. */
  #notReady: string | undefined = "not probed yet";
  #stopped = false;
  #probing = false;
  /** Set while leading: the queue whose failed keys run again when the Worker is back. */
  #failed: FailedKeys | undefined;
  /** The incarnation of each Durable Object namespace's storage, as the last answer named it. */
  readonly #incarnations = new Map<string, string>();
  readonly #storageLost: (bindings: readonly string[]) => void;

  /** `storageLost` hears the bindings whose storage's incarnation changed between two answers. */
  constructor(log: Logger, storageLost: (bindings: readonly string[]) => void = () => undefined) {
    this.#log = log;
    this.#storageLost = storageLost;
  }

  /** Whether the Worker answered last. */
  get ok(): boolean {
    return this.#ok === true;
  }

  /** Records whether the Worker answered a call; a change is one log line, whichever call saw it first. */
  reached(ok: boolean): void {
    if (this.#stopped) return;
    const back = ok && this.#ok !== true;
    // At start the first answer is no news; a first failure is.
    if (ok !== this.#ok && (this.#ok !== undefined || !ok)) this.#log(ok ? "info" : "warn", ok ? "worker reachable again" : "worker unreachable", {});
    this.#ok = ok;
    if (!back || !this.#failed) return;
    const released = this.#failed.retryFailedNow();
    if (released > 0) this.#log("info", "worker back: retrying keys now", { keys: released });
  }

  /** Why the Worker is not ready (unreachable, or its last readiness call failed); undefined when it is. */
  get failure(): string | undefined {
    if (this.#ok !== true) return `unreachable${this.#notReady ? `: ${this.#notReady}` : ""}`;
    return this.#notReady;
  }

  /** Whether the Worker answers and its last signed readiness call succeeded. */
  get ready(): boolean {
    return this.#ok === true && this.#notReady === undefined;
  }

  /** Makes the signed readiness call, and says when reachability or readiness changed; one at a time (a probe of a Worker away waits out its timeout). */
  async probe(worker: Pick<WorkerClient, "readiness">): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    try {
      await this.#probeOnce(worker);
    } finally {
      this.#probing = false;
    }
  }

  async #probeOnce(worker: Pick<WorkerClient, "readiness">): Promise<void> {
    let notReady: string | undefined;
    try {
      this.#compare(await worker.readiness());
    } catch (error) {
      notReady = error instanceof Error ? error.message : String(error);
      // Any answer, a 401 or a 503 too, is the Worker reached: only no answer holds keys back.
      if (workerAway(error)) return this.#answered(false, notReady);
    }
    this.#answered(true, notReady);
  }

  #answered(ok: boolean, notReady: string | undefined): void {
    if (ok && ok === this.#ok && (notReady === undefined) !== (this.#notReady === undefined)) this.#log(notReady ? "warn" : "info", notReady ? "worker not ready" : "worker ready", notReady ? { reason: notReady } : {});
    this.#notReady = notReady;
    this.reached(ok);
  }

  /** Records each namespace's incarnation; tells `storageLost` of those that changed. */
  #compare(answer: Readiness): void {
    const changed = Object.entries(answer.durableObjects).flatMap(([binding, { incarnation }]) => {
      const before = this.#incarnations.get(binding);
      this.#incarnations.set(binding, incarnation);
      return before !== undefined && before !== incarnation ? [binding] : [];
    });
    if (changed.length > 0 && !this.#stopped) this.#storageLost(changed);
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
