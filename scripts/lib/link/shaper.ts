/**
 * The relay–Worker link as deployed, on loopback: a TCP proxy in front of the Worker that
 * delays, throttles and loses what crosses it, in user space (no root, no kernel feature:
 * CI and a laptop run it as they are). The relay dials the proxy; the proxy dials the
 * Worker. Both directions of every connection are shaped:
 * - each chunk arrives half an RTT (± jitter) after it was sent, bytes never reordered;
 * - a new connection's first bytes wait two RTTs more: TCP's handshake and TLS 1.3's, as a
 *   connection to Cloudflare's edge does;
 * - bandwidth is one queue per direction that every connection shares;
 * - a lost segment (1,460 bytes) holds its connection for a retransmission timeout,
 *   max(200 ms, RTT + 4 × jitter) as Linux computes it, since TCP delivers nothing after a
 *   hole until it is filled;
 * - `down`: nothing is answered nor refused. A connection opened meanwhile is accepted and
 *   hears nothing; what was in flight waits. Each caller's own timeout ends it, as with a
 *   host gone from the internet; what is still open when the link returns goes on.
 * - the faults: `5xx`, each request answered 503 by the link itself (no Worker error body,
 *   as Cloudflare's edge answers); `reset`, each answer cut by a reset halfway through its
 *   first chunk. `up` clears a fault.
 * A connection holds at most {@link WINDOW_BYTES} in flight each way: its sender is paused
 * beyond that, as a TCP window would, so a link that is down or slow holds bounded memory.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { NO_SHAPE, type LinkCommand, type LinkFault, type LinkShape } from "./spec.ts";

/** Bytes one direction of one connection holds before its sender is paused. */
export const WINDOW_BYTES = 4 * 1024 * 1024;

/** TCP's segment size on an Ethernet path: the unit a loss takes away. */
const SEGMENT_BYTES = 1_460;

/** Linux's lower bound on the retransmission timeout. */
const MIN_RTO_MS = 200;

/** Round trips before a new connection's first byte can leave: TCP's handshake, then TLS 1.3's. */
const HANDSHAKE_RTTS = 2;

/** What the shaper has seen since it started. */
export interface LinkCounters {
  readonly connections: number;
  readonly open: number;
  readonly bytesToWorker: number;
  readonly bytesFromWorker: number;
  /** Chunks that lost a segment and waited a retransmission timeout. */
  readonly retransmissions: number;
  /** Bytes waiting in the link now, both directions of every connection. */
  readonly held: number;
}

/** The link's state, as `npm run link` shows it. */
export interface LinkState {
  readonly up: boolean;
  /** The fault in force, if any. */
  readonly fault: LinkFault | undefined;
  readonly shape: LinkShape;
  readonly counters: LinkCounters;
}

/** One direction of the link: its bandwidth queue, shared by every connection. */
class Lane {
  /** When the last byte queued on this lane has been put on the wire. */
  busyUntil = 0;
  bytes = 0;
}

/** How a chunk's arrival is computed: the link's shape and its randomness. */
interface Timing {
  readonly shape: () => LinkShape;
  readonly up: () => boolean;
  readonly fault: () => LinkFault | undefined;
  readonly random: () => number;
  readonly retransmitted: () => void;
}

/** The answer of a link whose fault is `5xx`: not the Worker's, as an edge's error page is not. */
const FAULT_BODY = "link fault: 503 (upstream)";
const FAULT_503 = `HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: ${FAULT_BODY.length}\r\nconnection: close\r\n\r\n${FAULT_BODY}`;

/** One direction of one connection: chunks waiting for their arrival time, in order. */
class DelayLine {
  readonly #queue: { chunk: Buffer; at: number }[] = [];
  readonly #from: Socket;
  readonly #to: Socket;
  readonly #lane: Lane;
  readonly #timing: Timing;
  /** No byte leaves before this (the handshake). */
  readonly #notBefore: number;
  readonly #towardWorker: boolean;
  #queued = 0;
  #lastAt = 0;
  #ended = false;
  #timer: NodeJS.Timeout | undefined;

  /** Bytes waiting in this line. */
  get queued(): number {
    return this.#queued;
  }

  constructor(from: Socket, to: Socket, lane: Lane, timing: Timing, notBefore: number, towardWorker: boolean) {
    this.#towardWorker = towardWorker;
    this.#from = from;
    this.#to = to;
    this.#lane = lane;
    this.#timing = timing;
    this.#notBefore = notBefore;
    from.on("data", (chunk: Buffer) => this.#push(chunk));
    from.on("end", () => {
      this.#ended = true;
      this.#pump();
    });
  }

  #push(chunk: Buffer): void {
    if (this.#towardWorker && this.#timing.fault() === "5xx") {
      // The request never reaches the Worker: what answers is the link.
      this.#from.end(FAULT_503);
      this.#to.destroy();
      return;
    }
    const now = performance.now();
    const shape = this.#timing.shape();
    let sent = now;
    if (shape.bitsPerSecond !== undefined) {
      this.#lane.busyUntil = Math.max(this.#lane.busyUntil, now) + (chunk.length * 8 * 1000) / shape.bitsPerSecond;
      sent = this.#lane.busyUntil;
    }
    let delay = shape.rttMs / 2 + (shape.jitterMs > 0 ? (this.#timing.random() * 2 - 1) * shape.jitterMs : 0);
    if (shape.loss > 0 && this.#timing.random() < 1 - (1 - shape.loss) ** Math.ceil(chunk.length / SEGMENT_BYTES)) {
      delay += Math.max(MIN_RTO_MS, shape.rttMs + 4 * shape.jitterMs);
      this.#timing.retransmitted();
    }
    const at = Math.max(sent, this.#notBefore) + Math.max(0, delay);
    this.#lastAt = Math.max(this.#lastAt, at);
    this.#queue.push({ chunk, at: this.#lastAt });
    this.#queued += chunk.length;
    this.#lane.bytes += chunk.length;
    if (this.#queued > WINDOW_BYTES) this.#from.pause();
    this.#pump();
  }

  /** Delivers what is due; waits for the head's time otherwise (or for the link to come back). */
  #pump(): void {
    if (this.#timer !== undefined || this.#to.destroyed) return;
    if (!this.#timing.up()) return;
    const now = performance.now();
    while (this.#queue.length > 0 && (this.#queue[0]?.at ?? 0) <= now) {
      const { chunk } = this.#queue.shift() as { chunk: Buffer; at: number };
      this.#queued -= chunk.length;
      if (!this.#towardWorker && this.#timing.fault() === "reset") {
        // Half of the answer, then a reset: the caller sees its body end mid-way.
        this.#to.write(chunk.subarray(0, Math.max(1, chunk.length >> 1)), () => this.#to.resetAndDestroy());
        this.#from.destroy();
        return;
      }
      this.#to.write(chunk);
    }
    if (this.#queued <= WINDOW_BYTES / 2 && this.#from.isPaused()) this.#from.resume();
    const head = this.#queue[0];
    if (head !== undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#pump();
      }, head.at - now);
    } else if (this.#ended) this.#to.end();
  }

  /** The link is back: what waited is due half an RTT from now at the earliest. */
  resume(): void {
    const earliest = performance.now() + this.#timing.shape().rttMs / 2;
    for (const item of this.#queue) item.at = Math.max(item.at, earliest);
    this.#lastAt = Math.max(this.#lastAt, earliest);
    this.#pump();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** One relay connection and the Worker connection it is carried on. */
interface Carried {
  readonly client: Socket;
  upstream: Socket | undefined;
  lines: DelayLine[];
}

/** Options of {@link LinkShaper.start}. */
export interface LinkShaperOptions {
  /** The Worker's address. */
  readonly target: { readonly host: string; readonly port: number };
  readonly shape?: LinkShape;
  /** 0..1; `Math.random` unless given (a bench passes a seeded one). */
  readonly random?: () => number;
  /** Told when the link goes down or comes back (npm start logs it). */
  readonly onChange?: (state: LinkState) => void;
}

/** The shaping proxy; `url` is what the relay is given as the Worker's URL. */
export class LinkShaper {
  readonly #server: Server;
  readonly #target: { readonly host: string; readonly port: number };
  readonly #random: () => number;
  readonly #onChange: (state: LinkState) => void;
  readonly #open = new Set<Carried>();
  readonly #toWorker = new Lane();
  readonly #fromWorker = new Lane();
  #shape: LinkShape;
  #up = true;
  #fault: LinkFault | undefined;
  #connections = 0;
  #retransmissions = 0;

  private constructor(server: Server, options: LinkShaperOptions) {
    this.#server = server;
    this.#target = options.target;
    this.#shape = options.shape ?? NO_SHAPE;
    this.#random = options.random ?? Math.random;
    this.#onChange = options.onChange ?? ((): void => undefined);
    server.on("connection", (client) => this.#accept(client));
  }

  /** Listens on 127.0.0.1 (`port` 0 picks one). */
  static async start(options: LinkShaperOptions, port = 0): Promise<LinkShaper> {
    const server = createServer({ noDelay: true });
    const shaper = new LinkShaper(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    return shaper;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port>`: the Worker, as the relay reaches it across the link. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get state(): LinkState {
    return {
      up: this.#up,
      fault: this.#fault,
      shape: this.#shape,
      counters: { connections: this.#connections, open: this.#open.size, bytesToWorker: this.#toWorker.bytes, bytesFromWorker: this.#fromWorker.bytes, retransmissions: this.#retransmissions, held: [...this.#open].reduce((sum, carried) => sum + carried.lines.reduce((bytes, line) => bytes + line.queued, 0), 0) },
    };
  }

  /** Changes the link now: a new shape applies to what is sent from now on. */
  apply(command: LinkCommand): LinkState {
    const was = { up: this.#up, fault: this.#fault };
    if (command.kind === "shape") this.#shape = command.shape;
    else if (command.kind === "fault") this.#fault = command.fault;
    else {
      this.#up = command.kind === "up";
      if (this.#up) this.#fault = undefined;
    }
    if (this.#up && !was.up) for (const carried of this.#open) this.#resume(carried);
    if (this.#up !== was.up || this.#fault !== was.fault) this.#onChange(this.state);
    return this.state;
  }

  #accept(client: Socket): void {
    this.#connections += 1;
    const carried: Carried = { client, upstream: undefined, lines: [] };
    this.#open.add(carried);
    client.setNoDelay(true);
    client.pause();
    client.on("error", () => this.#close(carried));
    client.on("close", () => this.#close(carried));
    if (this.#up) this.#dial(carried);
  }

  /** Opens the Worker side and starts both lines; the handshake's round trips come first. */
  #dial(carried: Carried): void {
    const upstream = connect({ host: this.#target.host, port: this.#target.port, noDelay: true });
    carried.upstream = upstream;
    upstream.on("error", () => this.#close(carried));
    upstream.on("close", () => this.#close(carried));
    const timing: Timing = { shape: () => this.#shape, up: () => this.#up, fault: () => this.#fault, random: this.#random, retransmitted: () => (this.#retransmissions += 1) };
    const handshake = performance.now() + HANDSHAKE_RTTS * this.#shape.rttMs;
    carried.lines = [new DelayLine(carried.client, upstream, this.#toWorker, timing, handshake, true), new DelayLine(upstream, carried.client, this.#fromWorker, timing, handshake, false)];
    carried.client.resume();
  }

  #resume(carried: Carried): void {
    if (carried.upstream === undefined) this.#dial(carried);
    else for (const line of carried.lines) line.resume();
  }

  #close(carried: Carried): void {
    if (!this.#open.delete(carried)) return;
    for (const line of carried.lines) line.stop();
    carried.client.destroy();
    carried.upstream?.destroy();
  }

  /** Closes every connection and the listener. */
  async stop(): Promise<void> {
    for (const carried of [...this.#open]) this.#close(carried);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
