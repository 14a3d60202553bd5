/**
 * The completed writes a channel's feed loop reports to the Worker (`delivered`): for each
 * peer, the highest sequence whose socket write completed since the last report. A report
 * the Worker did not get is put back, so no completed write goes unreported.
 */
import type { ChannelDelivered } from "../../protocol/index.ts";

/** The protocol's bound on one report's entries. */
export const MAX_DELIVERED_PER_REQUEST = 10_000;

/** Highest completed sequence per peer, not yet reported. */
export class DeliveredMarks {
  readonly #highest = new Map<string, bigint>();

  /** A write of `seq` to `peer`'s socket completed. */
  record(peer: string, seq: bigint): void {
    const known = this.#highest.get(peer);
    if (known === undefined || seq > known) this.#highest.set(peer, seq);
  }

  /** Takes up to {@link MAX_DELIVERED_PER_REQUEST} marks for a report (the rest wait for the next). */
  take(): ChannelDelivered[] {
    const taken: ChannelDelivered[] = [];
    for (const [peer, seq] of this.#highest) {
      if (taken.length >= MAX_DELIVERED_PER_REQUEST) break;
      taken.push({ peer, seq: seq.toString() });
      this.#highest.delete(peer);
    }
    return taken;
  }

  /** Puts back a report that did not reach the Worker (a higher mark recorded since wins). */
  restore(marks: readonly ChannelDelivered[]): void {
    for (const mark of marks) this.record(mark.peer, BigInt(mark.seq));
  }

  get size(): number {
    return this.#highest.size;
  }
}
