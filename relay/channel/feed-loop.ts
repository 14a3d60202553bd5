/**
 * A channel's feed loop (the leader only): long-polls the Worker's feed, hands each frame
 * to its peer's session (written in order, or dropped when the peer is not connected: it
 * gets its whole state when it connects), reports the completed writes, and acknowledges
 * the batch by sending the next cursor only once every frame of it is handled. Failures
 * back off from 200 ms to 10 s.
 */
import type { Logger } from "../../cli/log.ts";
import type { ChannelFeed, ChannelFeedRequest } from "../../protocol/index.ts";
import { Backoff, DEFAULT_BACKOFF, pause, type BackoffLimits } from "./backoff.ts";
import type { DeliveredMarks } from "./delivered-marks.ts";
import type { PeerSession } from "./peer-session.ts";

/** How long a batch's writes are awaited before the next poll, so that their completions go in its `delivered` (a slow peer does not hold the others longer). */
export const WRITES_WAIT_MS = 1_000;

/** What the loop uses. */
export interface FeedLoopDeps {
  readonly channel: string;
  /** `POST /v1/channels/{channel}/feed`. */
  feed(request: ChannelFeedRequest, signal: AbortSignal): Promise<ChannelFeed>;
  /** The peer's current session, if it is connected. */
  session(peer: string): PeerSession | undefined;
  /** A frame for a peer not connected was dropped. */
  dropped(): void;
  readonly marks: DeliveredMarks;
  readonly log: Logger;
  /** The long-poll, in seconds. */
  readonly waitSeconds: number;
  readonly backoff?: BackoffLimits;
  readonly writesWaitMs?: number;
}

/** One channel's feed loop. */
export class FeedLoop {
  readonly #deps: FeedLoopDeps;
  readonly #abort = new AbortController();
  #loop: Promise<void> | undefined;
  #cursor = "0";

  constructor(deps: FeedLoopDeps) {
    this.#deps = deps;
  }

  /** The cursor the next poll sends (everything up to it handled). */
  get cursor(): string {
    return this.#cursor;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops at once (an outstanding poll is aborted); resolves when the loop has ended. */
  stop(): Promise<void> {
    this.#abort.abort();
    return this.#loop ?? Promise.resolve();
  }

  async #run(): Promise<void> {
    const { channel, marks, log, waitSeconds } = this.#deps;
    const signal = this.#abort.signal;
    const backoff = new Backoff(this.#deps.backoff ?? DEFAULT_BACKOFF);
    while (!signal.aborted) {
      const delivered = marks.take();
      try {
        const batch = await this.#deps.feed({ cursor: this.#cursor, waitSeconds, delivered }, signal);
        await this.#handle(batch);
        // Acknowledged by the next request, only now that every frame is written or dropped.
        this.#cursor = batch.cursor;
        backoff.reset();
      } catch (error) {
        marks.restore(delivered);
        if (signal.aborted) return;
        const delay = backoff.next();
        log("warn", "channel feed poll failed", { channel, error: String(error), retryInMs: delay });
        await pause(delay, signal);
      }
    }
  }

  async #handle(batch: ChannelFeed): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const frame of batch.frames) {
      const session = this.#deps.session(frame.peer);
      if (!session) {
        this.#deps.dropped();
        continue;
      }
      const write = session.feed(BigInt(frame.seq), batch.texts[frame.text] ?? "");
      if (write) writes.push(write);
    }
    if (writes.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#deps.writesWaitMs ?? WRITES_WAIT_MS)));
    await Promise.race([Promise.all(writes), waited]);
    clearTimeout(timer);
  }
}
