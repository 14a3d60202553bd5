/**
 * One peer's frames, upstream: forwarded to the Worker's `receive` one at a time in the
 * order the peer sent them (other peers' queues run independently), the answer's actions
 * applied, a refusal logged and counted. A transient failure (the Worker unreachable, a
 * 5xx or 429) is retried with backoff, the frame keeping its place; the queue is bounded
 * by pausing the peer's socket (TCP pushes back on it) above a high-water mark.
 */
import type { Logger } from "../../cli/log.ts";
import { StatusError, type Action, type ChannelReceive, type ChannelReceiveAnswer } from "../../protocol/index.ts";
import type { ApplyResult } from "../apply/applier.ts";
import { Backoff, DEFAULT_BACKOFF, pause, type BackoffLimits } from "./backoff.ts";

/** What happened to an upstream frame (counted as `edgeloop_channel_frames_total{direction="up"}`). */
export type UpResult = "accepted" | "refused" | "failed";

/** The socket's flow control (the `ws` socket's underlying stream has it). */
export interface Pausable {
  pause(): void;
  resume(): void;
}

/** What a queue uses. */
export interface UpstreamDeps {
  readonly channel: string;
  readonly peer: string;
  /** `POST /v1/channels/{channel}/receive`. */
  receive(request: ChannelReceive, signal: AbortSignal): Promise<ChannelReceiveAnswer>;
  /** Applies actions within the controller's permissions. */
  apply(actions: Action[]): Promise<ApplyResult>;
  /** A fresh id per frame (kept across its retries). */
  newId(): string;
  counted(result: UpResult): void;
  readonly log: Logger;
  /** Aborted when the relay stops. */
  readonly signal: AbortSignal;
  readonly backoff?: BackoffLimits;
  /** Frames queued above which the socket is paused (default {@link HIGH_WATER}). */
  readonly highWater?: number;
  /** Told when the queue has run dry (the channel forgets a queue with no socket). */
  drained?(): void;
}

/** Frames held per peer before its socket is paused. */
export const HIGH_WATER = 32;

/** Times a frame is forwarded while its answer's actions fail to apply, before it is counted failed (a conflict that keeps coming back must not stall the peer). */
const APPLY_ATTEMPTS = 5;

/** Whether a Worker failure may pass by waiting: unreachable, timeout, throttled, or its own error. */
export function transient(error: unknown): boolean {
  if (!(error instanceof StatusError)) return true;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

/** One peer's upstream queue. */
export class UpstreamQueue {
  readonly #deps: UpstreamDeps;
  readonly #frames: string[] = [];
  #socket: Pausable | undefined;
  #paused = false;
  #running = false;

  constructor(deps: UpstreamDeps) {
    this.#deps = deps;
  }

  /** Frames waiting or in flight. */
  get size(): number {
    return this.#frames.length;
  }

  /** The peer's current socket (a replacement takes over the flow control). */
  attach(socket: Pausable | undefined): void {
    this.#socket = socket;
    this.#paused = false;
    if (socket && this.#frames.length > this.#highWater) this.#pauseSocket();
  }

  /** A frame the peer sent. */
  push(data: string): void {
    this.#frames.push(data);
    if (this.#frames.length > this.#highWater) this.#pauseSocket();
    if (!this.#running) void this.#run();
  }

  get #highWater(): number {
    return this.#deps.highWater ?? HIGH_WATER;
  }

  #pauseSocket(): void {
    if (this.#paused || !this.#socket) return;
    this.#paused = true;
    this.#socket.pause();
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#frames.length > 0 && !this.#deps.signal.aborted) {
        await this.#forward(this.#frames[0] ?? "");
        this.#frames.shift();
        if (this.#paused && this.#frames.length <= this.#highWater / 2) {
          this.#paused = false;
          this.#socket?.resume();
        }
      }
    } finally {
      this.#running = false;
    }
    if (this.#frames.length === 0) this.#deps.drained?.();
  }

  /**
   * Forwards one frame until the Worker answers (or for good refuses the request), then
   * applies its actions. When they do not all apply (a 409: the status the answer was
   * computed from has moved on), the frame is forwarded again after a backoff, so that
   * the Worker decides anew from its newer view, rather than the same stale write being
   * sent again; after {@link APPLY_ATTEMPTS} tries it is counted failed, so that a
   * conflict that keeps coming back does not stall the peer.
   */
  async #forward(data: string): Promise<void> {
    const { channel, peer, log, signal } = this.#deps;
    const backoff = new Backoff(this.#deps.backoff ?? DEFAULT_BACKOFF);
    const id = this.#deps.newId();
    for (let attempt = 1; ; attempt++) {
      const answer = await this.#receive(id, data, backoff);
      if (!answer) return;
      if (!answer.accepted && attempt === 1) log("warn", "channel frame refused", { channel, peer, reason: answer.reason ?? "unknown", message: answer.message ?? "" });
      const result = await this.#deps.apply(answer.actions);
      if (result.ok) {
        this.#deps.counted(result.failed > 0 ? "failed" : answer.accepted ? "accepted" : "refused");
        return;
      }
      if (attempt >= APPLY_ATTEMPTS || signal.aborted) {
        log("warn", "channel frame's actions not applied", { channel, peer, error: result.error, unapplied: result.unapplied.length });
        this.#deps.counted("failed");
        return;
      }
      await pause(result.retryAfterMs ?? backoff.next(), signal);
    }
  }

  /** The Worker's answer to the frame, retried with backoff while the failure is transient; undefined when it never comes. */
  async #receive(id: string, data: string, backoff: Backoff): Promise<ChannelReceiveAnswer | undefined> {
    const { channel, peer, log, signal } = this.#deps;
    for (;;) {
      if (signal.aborted) return undefined;
      try {
        return await this.#deps.receive({ id, peer, data, now: new Date().toISOString() }, signal);
      } catch (error) {
        if (signal.aborted) return undefined;
        if (!transient(error)) {
          log("warn", "channel frame failed: the Worker refused the request", { channel, peer, error: String(error) });
          this.#deps.counted("failed");
          return undefined;
        }
        const delay = backoff.next();
        log("warn", "channel frame not forwarded, retrying", { channel, peer, error: String(error), retryInMs: delay });
        await pause(delay, signal);
      }
    }
  }
}
