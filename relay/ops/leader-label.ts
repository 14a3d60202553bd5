/**
 * The leading replica's pod carries {@link LEADER_LABEL}: a Service that selects it
 * (install-relay's `edgeloop-relay-channels`) sends the edge channels' peers to the one
 * replica that serves them, where a standby would answer their upgrade 503. A replica
 * clears the label from its own pod when it starts (a restarted container keeps its pod's
 * labels), sets it once it leads, and clears it when it loses the lease or stops.
 *
 * Each write is a merge PATCH of the pod's labels: `null` removes the label when present
 * and changes nothing otherwise, so the pod is never read (the relay is granted `patch`
 * alone). Writes are serialized and retried with backoff until the latest wish is written;
 * a newer wish replaces an older one not yet written.
 */
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../../cli/log.ts";
import { Backoff, DEFAULT_BACKOFF, pause, type BackoffLimits } from "../channel/backoff.ts";

/** The label the leader's pod carries, `"true"`; absent on every other replica's pod. */
export const LEADER_LABEL = "edgeloop.dev/leader";

/** The pod this replica runs in (POD_NAMESPACE, POD_NAME from the downward API). */
export interface OwnPod {
  readonly namespace: string;
  readonly name: string;
}

/** The merge patch that sets (`true`) or removes (`false`) the label. */
export function leaderLabelPatch(leading: boolean): { metadata: { labels: Record<string, string | null> } } {
  return { metadata: { labels: { [LEADER_LABEL]: leading ? "true" : null } } };
}

/** Keeps this replica's pod label in step with its leadership. */
export class LeaderPodLabel {
  readonly #client: Pick<KubeClient, "request">;
  readonly #path: string;
  readonly #log: Logger;
  readonly #backoff: Backoff;
  readonly #abort = new AbortController();
  #wanted: boolean | undefined;
  /** What the pod is known to carry: undefined until the first write. */
  #written: boolean | undefined;
  #running: Promise<void> | undefined;
  #stopping = false;

  constructor(client: Pick<KubeClient, "request">, pod: OwnPod, log: Logger, backoff: BackoffLimits = DEFAULT_BACKOFF) {
    this.#client = client;
    this.#path = `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}`;
    this.#log = log;
    this.#backoff = new Backoff(backoff);
  }

  /** Sets (`true`) or clears the label; resolves once that is written, or a newer wish replaced it, or on stop. */
  set(leading: boolean): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    this.#wanted = leading;
    return this.#run();
  }

  /** Stops retrying; clears the label with one last attempt unless it is known to be absent. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wanted = false;
    this.#abort.abort();
    await this.#run();
  }

  #run(): Promise<void> {
    if (this.#running) return this.#running;
    if (this.#wanted === undefined || this.#wanted === this.#written) return Promise.resolve();
    // The loop awaits a write before it can end, so #running is set before the loop clears it.
    this.#running = this.#loop();
    return this.#running;
  }

  async #loop(): Promise<void> {
    for (;;) {
      const wanted = this.#wanted;
      if (wanted === undefined || wanted === this.#written) break;
      try {
        await this.#client.request("PATCH", this.#path, { body: leaderLabelPatch(wanted), contentType: "application/merge-patch+json" });
        this.#written = wanted;
        this.#backoff.reset();
        this.#log("info", wanted ? "leader label set on this replica's pod" : "leader label cleared from this replica's pod", { pod: this.#path });
      } catch (error) {
        this.#log("warn", "leader label write failed", { pod: this.#path, leading: wanted, error: String(error) });
        if (this.#stopping) break;
        await pause(this.#backoff.next(), this.#abort.signal);
      }
    }
    this.#running = undefined;
  }
}
