/**
 * One peer's socket, downstream: the frames of the feed meant for it, written in sequence
 * order from the sequence its connect answered on. Until that answer the frames are held
 * (those after it are part of what the peer must get); then every frame of a lower
 * sequence is dropped: the state the connect queued supersedes it.
 */

/** The part of a WebSocket a session uses (the `ws` socket has it). */
export interface PeerSocket {
  /** Sends a text frame; `done` is called once the write completed, or with why it failed. */
  send(data: string, done: (error?: Error) => void): void;
  close(code: number, reason: string): void;
  /** Bytes queued on the socket, not yet written. */
  readonly bufferedAmount: number;
}

/** What happened to a downstream frame (counted as `edgeloop_channel_frames_total{direction="down"}`). */
export type DownResult = "sent" | "dropped";

/** Where a session reports its writes. */
export interface SessionReports {
  /** A frame was written (its write completed) or dropped. */
  counted(result: DownResult): void;
  /** A write of `seq` completed: reported to the Worker as delivered. */
  delivered(peer: string, seq: bigint): void;
}

/** A session's bounds: frames held before the connect answer, and bytes queued on the socket. */
export interface SessionLimits {
  readonly heldFrames: number;
  readonly queuedBytes: number;
}

/** Held frames and queued bytes past which a peer's socket is closed (1013): it reconnects and gets its whole state, rather than the relay holding an unbounded backlog for it. */
export const SESSION_LIMITS: SessionLimits = { heldFrames: 10_000, queuedBytes: 16 * 1024 * 1024 };

/** Close code of a socket whose backlog outgrew its bounds ("try again later"). */
export const CLOSE_OVERLOADED = 1013;

/** A downstream frame with its sequence as a number. */
interface HeldFrame {
  readonly seq: bigint;
  readonly data: string;
}

/** One socket of one peer, downstream. */
export class PeerSession {
  readonly peer: string;
  readonly #socket: PeerSocket;
  readonly #reports: SessionReports;
  readonly #limits: SessionLimits;
  /** The connect's answer, once known. */
  #from: bigint | undefined;
  #held: HeldFrame[] = [];
  #heldBytes = 0;
  #closed = false;

  constructor(peer: string, socket: PeerSocket, reports: SessionReports, limits: SessionLimits = SESSION_LIMITS) {
    this.peer = peer;
    this.#socket = socket;
    this.#reports = reports;
    this.#limits = limits;
  }

  /** Whether the connect has been answered (frames now go to the socket). */
  get streaming(): boolean {
    return this.#from !== undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A frame of the feed for this peer: held until the connect answer, dropped below it,
   * else written. Resolves once its write completed (or failed); `undefined` when it was
   * not written now.
   */
  feed(seq: bigint, data: string): Promise<void> | undefined {
    if (this.#closed) return this.#drop();
    if (this.#from === undefined) return this.#hold({ seq, data });
    if (seq < this.#from) return this.#drop();
    return this.#write(seq, data);
  }

  /** The connect answered `from`: the held frames from it on are written, in order, the others dropped. */
  connected(from: bigint): Promise<void>[] {
    if (this.#closed || this.#from !== undefined) return [];
    this.#from = from;
    const held = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    const writes: Promise<void>[] = [];
    for (const frame of held) {
      const write = this.feed(frame.seq, frame.data);
      if (write) writes.push(write);
    }
    return writes;
  }

  /** The socket closed (or was replaced): frames from now on are dropped. */
  ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const _frame of this.#held) this.#reports.counted("dropped");
    this.#held = [];
  }

  /** Closes the socket (and ends the session). */
  close(code: number, reason: string): void {
    this.ended();
    this.#socket.close(code, reason);
  }

  #hold(frame: HeldFrame): undefined {
    this.#held.push(frame);
    this.#heldBytes += frame.data.length;
    if (this.#held.length > this.#limits.heldFrames || this.#heldBytes > this.#limits.queuedBytes) this.close(CLOSE_OVERLOADED, "too many frames before the connect was answered");
    return undefined;
  }

  #drop(): undefined {
    this.#reports.counted("dropped");
    return undefined;
  }

  #write(seq: bigint, data: string): Promise<void> | undefined {
    if (this.#socket.bufferedAmount > this.#limits.queuedBytes) {
      this.close(CLOSE_OVERLOADED, "the peer reads too slowly");
      return this.#drop();
    }
    return new Promise((resolve) => {
      this.#socket.send(data, (error) => {
        if (error) this.#reports.counted("dropped");
        else {
          this.#reports.counted("sent");
          this.#reports.delivered(this.peer, seq);
        }
        resolve();
      });
    });
  }
}
