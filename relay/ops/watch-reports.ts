/**
 * What the informers report, said in the relay's log and counted: relists by reason
 * (`edgeloop_relists_total`), watches resumed after a silence (`edgeloop_watch_restarts_total`),
 * and watch errors. A relist delivers its changes as events (what it lacks as deleted,
 * what changed as added or modified, nothing for what did not): those already marked
 * their parents dirty and reached the events controllers, so a relist resyncs nothing more.
 */
import type { Logger } from "../../cli/log.ts";
import type { RestartReason, WatchReporter } from "../watch/informer.ts";
import type { RelistCounts, RelistReason } from "../watch/relist.ts";
import type { Metrics } from "./metrics.ts";

/** The informers' reports, to the log and the metrics. */
export class WatchReports implements WatchReporter {
  readonly #metrics: Metrics;
  readonly #log: Logger;
  readonly #silenceSeconds: number;

  /** `silenceSeconds`: the informers' silence bound, said with each restart. */
  constructor(metrics: Metrics, log: Logger, silenceSeconds: number) {
    this.#metrics = metrics;
    this.#log = log;
    this.#silenceSeconds = silenceSeconds;
  }

  relisted(informer: string, reason: RelistReason, changes: RelistCounts): void {
    this.#metrics.inc("edgeloop_relists_total", { informer, reason });
    this.#log("info", "relisted", { informer, reason, ...changes });
  }

  restarted(informer: string, reason: RestartReason): void {
    this.#metrics.inc("edgeloop_watch_restarts_total", { informer, reason });
    this.#log("info", "watch restarted", { informer, reason, silenceSeconds: this.#silenceSeconds });
  }

  failed(informer: string, error: unknown): void {
    this.#log("warn", "watch error", { informer, error: String(error) });
  }

  notServed(informer: string, retrySeconds: number): void {
    this.#log("warn", "resource not served", { informer, retrySeconds, hint: "the API server has no such resource (a CRD not installed, an API not enabled): nothing of it is watched; it is looked for again" });
  }

  served(informer: string): void {
    this.#log("info", "resource served", { informer });
  }
}
