/**
 * Leader election over a coordination.k8s.io/v1 Lease, as client-go does it: the holder
 * renews the lease; another replica takes it over once it has not been renewed for
 * `leaseDurationSeconds`. Writes carry the lease's resourceVersion, so two candidates
 * can never both win. Only the leader runs the work queue and the outbox loop.
 */
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../../cli/log.ts";
import type { LeaderMetrics } from "./metrics.ts";
import { StatusError } from "../../protocol/index.ts";

const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" } as const;

/** Lease settings. */
export interface LeaderOptions {
  readonly namespace: string;
  readonly name: string;
  /** This replica (the pod name). */
  readonly identity: string;
  readonly leaseDurationSeconds: number;
  /** How often the holder renews, and candidates retry. */
  readonly retrySeconds: number;
}

/** The part of a Lease election reads. */
export interface LeaseState {
  readonly holderIdentity?: string | null;
  readonly leaseDurationSeconds?: number | null;
  readonly renewTime?: string | null;
}

/**
 * When this replica last saw the lease's record change (client-go's `observedTime`), on
 * the monotonic clock: expiry is measured from there, never by comparing the holder's
 * `renewTime` with this replica's wall clock, which a clock step or a skew between nodes
 * turns into a takeover of a live lease (or a wait as long as the step).
 */
export interface Observation {
  /** The holder and renew time as last read. */
  readonly record: string;
  /** `performance.now()` when `record` was first seen. */
  readonly atMs: number;
}

/** The observation after reading `lease` at `nowMs` (monotonic): the same one while the record has not changed (pure). */
export function observe(previous: Observation | undefined, lease: LeaseState | undefined, nowMs: number): Observation {
  const record = JSON.stringify([lease?.holderIdentity ?? null, lease?.renewTime ?? null]);
  return previous?.record === record ? previous : { record, atMs: nowMs };
}

/** What a candidate should do with the lease as it is now, `nowMs` on the clock of `observed` (pure). */
export function decide(lease: LeaseState | undefined, identity: string, observed: Observation, nowMs: number, defaultDurationSeconds: number): "create" | "renew" | "takeover" | "wait" {
  if (!lease) return "create";
  if (lease.holderIdentity === identity) return "renew";
  if (!lease.holderIdentity) return "takeover";
  const duration = (lease.leaseDurationSeconds ?? defaultDurationSeconds) * 1000;
  return nowMs - observed.atMs > duration ? "takeover" : "wait";
}

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

interface Lease {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseState & { acquireTime?: string; leaseTransitions?: number };
}

/** Campaigns for the lease, then keeps it. */
export class LeaderElector {
  readonly #client: KubeClient;
  readonly #options: LeaderOptions;
  readonly #log: Logger;
  readonly #metrics: LeaderMetrics | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #leading = false;
  #observed: Observation | undefined;

  /** `metrics`: told when this replica starts and stops leading (`leader_election_master_status`, 0 from the start as in client-go). */
  constructor(client: KubeClient, options: LeaderOptions, log: Logger, metrics?: LeaderMetrics) {
    this.#client = client;
    this.#options = options;
    this.#log = log;
    this.#metrics = metrics;
    metrics?.leaderOff(options.name);
  }

  /** Whether this replica holds the lease. */
  get leading(): boolean {
    return this.#leading;
  }

  /** Resolves once this replica leads; afterwards renews, calling `onLost` if the lease is lost. */
  async campaign(onLost: () => void): Promise<void> {
    for (;;) {
      if (this.#stopped) throw new Error("leader election stopped");
      if (await this.#tryAcquire().catch((error: unknown) => this.#warn("lease acquire failed", error))) break;
      await new Promise((resolve) => (this.#timer = setTimeout(resolve, this.#options.retrySeconds * 1000)));
    }
    this.#leading = true;
    this.#metrics?.leaderOn(this.#options.name);
    this.#log("info", "leading", { lease: `${this.#options.namespace}/${this.#options.name}`, identity: this.#options.identity });
    this.#renewLoop(onLost, performance.now());
  }

  /**
   * Stops renewing and, when leading, releases the lease so a standby takes over at once.
   * `release: false` walks away like a crashed process: the lease lapses on its own.
   */
  async stop(options: { readonly release?: boolean } = {}): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#leading) this.#metrics?.leaderOff(this.#options.name);
    if (!this.#leading || options.release === false) return;
    this.#leading = false;
    const lease = await this.#read().catch(() => undefined);
    if (lease?.spec.holderIdentity !== this.#options.identity) return;
    await this.#write({ ...lease, spec: { ...lease.spec, holderIdentity: null } }).catch((error: unknown) => this.#warn("lease release failed", error));
  }

  #renewLoop(onLost: () => void, lastRenewed: number): void {
    this.#timer = setTimeout(() => {
      void this.#tryAcquire()
        .catch((error: unknown) => this.#warn("lease renew failed", error))
        .then((ok) => {
          if (this.#stopped) return;
          // Monotonic: a wall clock stepped back must not keep a lease whose renewals failed (two leaders).
          const now = performance.now();
          if (ok) return this.#renewLoop(onLost, now);
          // Lost when someone else holds it, or when renewals failed for a whole lease duration.
          if (ok === false || now - lastRenewed > this.#options.leaseDurationSeconds * 1000) {
            this.#leading = false;
            this.#metrics?.leaderOff(this.#options.name);
            this.#log("error", "lost the lease", { lease: `${this.#options.namespace}/${this.#options.name}` });
            return onLost();
          }
          this.#renewLoop(onLost, lastRenewed);
        });
    }, this.#options.retrySeconds * 1000);
  }

  async #tryAcquire(): Promise<boolean> {
    const lease = await this.#read();
    const now = new Date();
    const elapsed = performance.now();
    this.#observed = observe(this.#observed, lease?.spec, elapsed);
    const action = decide(lease?.spec, this.#options.identity, this.#observed, elapsed, this.#options.leaseDurationSeconds);
    if (action === "wait") return false;
    const spec = {
      holderIdentity: this.#options.identity,
      leaseDurationSeconds: this.#options.leaseDurationSeconds,
      renewTime: microTime(now),
      acquireTime: action === "renew" ? (lease?.spec.acquireTime ?? microTime(now)) : microTime(now),
      leaseTransitions: (lease?.spec.leaseTransitions ?? 0) + (action === "takeover" ? 1 : 0),
    };
    try {
      if (!lease) await this.#create({ metadata: { name: this.#options.name, namespace: this.#options.namespace }, spec });
      else await this.#write({ ...lease, spec });
      return true;
    } catch (error) {
      // Another candidate wrote first: not ours this round.
      if (error instanceof StatusError && (error.status === 409 || error.status === 422)) return false;
      throw error;
    }
  }

  async #read(): Promise<Lease | undefined> {
    try {
      return (await this.#client.request("GET", await this.#client.path(LEASE, this.#options.namespace, this.#options.name))) as Lease;
    } catch (error) {
      if (error instanceof StatusError && error.status === 404) return undefined;
      throw error;
    }
  }

  async #create(lease: Lease): Promise<void> {
    await this.#client.request("POST", await this.#client.path(LEASE, this.#options.namespace), { body: { apiVersion: LEASE.apiVersion, kind: LEASE.kind, ...lease } });
  }

  async #write(lease: Lease): Promise<void> {
    await this.#client.request("PUT", await this.#client.path(LEASE, this.#options.namespace, this.#options.name), { body: { apiVersion: LEASE.apiVersion, kind: LEASE.kind, ...lease } });
  }

  #warn(msg: string, error: unknown): undefined {
    this.#log("warn", msg, { error: String(error) });
    return undefined;
  }
}
