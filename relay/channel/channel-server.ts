/**
 * One edge channel's WebSocket server (ADR 0028): peers (agents on the nodes) dial
 * `ws://host:port/` naming themselves in the channel's peer header; one socket per peer, a
 * new one replacing the old. Each socket's frames go upstream through the peer's
 * {@link UpstreamQueue}; downstream, the {@link FeedLoop} writes the Worker's frames through
 * each peer's {@link PeerSession}, which a connect call starts. The port is bound from the
 * start, but only the leader serves: a standby answers 503, so the peer retries and lands
 * on the leader.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import type { Logger } from "../../cli/log.ts";
import { capConnections, CONNECTION_LIMITS, serverLimits, type ConnectionLimits } from "../../cli/http-limits.ts";
import { PeerName, type Action, type ChannelSpec, type ControllerManifest } from "../../protocol/index.ts";
import type { ApplyResult } from "../apply/applier.ts";
import type { PlanSink } from "../apply/guard.ts";
import type { WorkerClient } from "../deliver/worker-client.ts";
import type { Metrics } from "../ops/metrics.ts";
import { Backoff, DEFAULT_BACKOFF, pause, type BackoffLimits } from "./backoff.ts";
import { DeliveredMarks } from "./delivered-marks.ts";
import { FeedLoop, WRITES_WAIT_MS } from "./feed-loop.ts";
import { PeerSession, SESSION_LIMITS, type DownResult, type SessionLimits } from "./peer-session.ts";
import { HIGH_WATER, UpstreamQueue, type UpResult } from "./upstream.ts";

/** Close code and reason of a socket a newer one of the same peer replaced (private range: the peer is not at fault). */
export const CLOSE_REPLACED = 4000;
const REPLACED_REASON = "replaced by a newer connection of the same peer";

/**
 * Connections the kernel holds before they are accepted. Node's default, 511, overflowed
 * when 1,000 peers reconnected at once: the SYNs dropped were sent again a second later,
 * and the slowest peer had its state after 1.26 s instead of 0.38–0.49 (loopback, clients
 * in the same process; the kernel caps it at `net.core.somaxconn`, 4096 by default).
 */
const ACCEPT_BACKLOG = 4096;

/** Timings and bounds; tests shorten them. */
export interface ChannelTuning {
  /** A ping every this many ms; a peer that has not answered the previous one is terminated. */
  readonly pingMs: number;
  /** Sockets (and upgrades in progress) at most; more are answered 503. */
  readonly maxConnections: number;
  readonly backoff: BackoffLimits;
  readonly writesWaitMs: number;
  readonly session: SessionLimits;
  readonly highWater: number;
  /** The HTTP server's timeouts (a slowloris on the upgrade) and its cap of TCP connections. */
  readonly connections: ConnectionLimits;
}

const MAX_PEERS = 20_000;

export const CHANNEL_TUNING: ChannelTuning = {
  pingMs: 30_000,
  maxConnections: MAX_PEERS,
  backoff: DEFAULT_BACKOFF,
  writesWaitMs: WRITES_WAIT_MS,
  session: SESSION_LIMITS,
  highWater: HIGH_WATER,
  // Above the peers: the connections over `maxConnections` must still get their 503.
  connections: { ...CONNECTION_LIMITS, maxConnections: MAX_PEERS + 1_024 },
};

/** What every channel shares: the Worker, the apply stage, metrics, log, leadership and timings. */
export interface ChannelStageDeps {
  readonly worker: Pick<WorkerClient, "channelConnect" | "channelFeed" | "channelReceive">;
  readonly plans: PlanSink;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Whether this replica serves (holds the lease, or runs without election). */
  leading(): boolean;
  /** The feed's long-poll, in seconds. */
  readonly waitSeconds: number;
  readonly tuning?: Partial<ChannelTuning>;
}

/** What a channel server uses. */
export interface ChannelServerDeps extends ChannelStageDeps {
  readonly spec: ChannelSpec;
  /** The controller that declares the channel: its permissions bound the actions of the Worker's answers. */
  controller(): ControllerManifest | undefined;
}

/** A peer's current socket and its session. */
interface Peer {
  readonly ws: WebSocket;
  readonly session: PeerSession;
  alive: boolean;
}

/** One channel's server. */
export class ChannelServer {
  readonly #deps: ChannelServerDeps;
  readonly #tuning: ChannelTuning;
  readonly #name: string;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #peers = new Map<string, Peer>();
  readonly #upstream = new Map<string, UpstreamQueue>();
  readonly #marks = new DeliveredMarks();
  readonly #feed: FeedLoop;
  readonly #abort = new AbortController();
  readonly #sockets = new Set<Socket>();
  readonly #run = randomUUID();
  #frameIds = 0;
  #upgrading = 0;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #address: AddressInfo | undefined;

  constructor(deps: ChannelServerDeps) {
    this.#deps = deps;
    this.#tuning = { ...CHANNEL_TUNING, ...deps.tuning };
    this.#name = deps.spec.name;
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: deps.spec.maxFrameBytes });
    this.#http = createServer(serverLimits(this.#tuning.connections), (_request, response) => {
      response.writeHead(426, { "content-type": "application/json", upgrade: "websocket" });
      response.end(JSON.stringify(errorBody("upgrade_required", "this port serves a WebSocket", "")));
    });
    capConnections(this.#http, this.#tuning.connections);
    this.#http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(request, socket, head));
    this.#http.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
    this.#feed = new FeedLoop({
      channel: this.#name,
      feed: (request, signal) => deps.worker.channelFeed(this.#name, request, signal),
      session: (peer) => this.#peers.get(peer)?.session,
      dropped: () => this.#countDown("dropped"),
      marks: this.#marks,
      log: deps.log,
      waitSeconds: deps.waitSeconds,
      backoff: this.#tuning.backoff,
      writesWaitMs: this.#tuning.writesWaitMs,
    });
  }

  get name(): string {
    return this.#name;
  }

  /** Peers connected now. */
  get peers(): number {
    return this.#peers.size;
  }

  /** `host:port` bound, once listening. */
  get address(): string | undefined {
    const address = this.#address;
    if (!address) return undefined;
    return address.family === "IPv6" ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
  }

  /** Binds the port (0 picks one); resolves with the port bound. */
  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#http.once("error", reject);
      this.#http.listen({ port, host, backlog: ACCEPT_BACKLOG }, () => {
        this.#http.off("error", reject);
        resolve();
      });
    });
    this.#address = this.#http.address() as AddressInfo;
    this.#heartbeat = setInterval(() => this.#ping(), this.#tuning.pingMs);
    return this.#address.port;
  }

  /** Starts the feed loop (the leader only). */
  lead(): void {
    this.#feed.start();
  }

  /** Closes every socket (1001), the port and the loops. */
  async close(): Promise<void> {
    this.#abort.abort();
    clearInterval(this.#heartbeat);
    for (const peer of this.#peers.values()) peer.session.close(1001, "relay stopping");
    this.#peers.clear();
    await this.#feed.stop();
    for (const ws of this.#wss.clients) ws.terminate();
    await new Promise<void>((resolve) => {
      this.#http.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
    });
  }

  #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refusal = this.#refusal(request);
    if (refusal) {
      reject(socket, refusal.status, errorBody(refusal.code, refusal.message, refusal.path));
      return;
    }
    const peer = PeerName.parse(request.headers[this.#deps.spec.peerHeader.toLowerCase()]);
    // Counted until it opens or its socket closes (a handshake ws refuses never opens).
    let upgrading = true;
    const settled = (): void => {
      if (upgrading) this.#upgrading--;
      upgrading = false;
    };
    this.#upgrading++;
    socket.once("close", settled);
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      settled();
      socket.off("close", settled);
      this.#open(peer, ws);
    });
  }

  /** Why an upgrade is refused, if it is. */
  #refusal(request: IncomingMessage): { status: number; code: string; message: string; path: string } | undefined {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/") return { status: 404, code: "not_found", message: `no WebSocket at ${path ?? ""}; peers dial /`, path: "path" };
    if (!this.#deps.leading()) return { status: 503, code: "not_leader", message: "this relay replica is a standby; retry (the Service reaches the leader)", path: "" };
    const header = this.#deps.spec.peerHeader;
    const name = request.headers[header.toLowerCase()];
    if (!PeerName.safeParse(name).success) return { status: 400, code: "invalid", message: `header ${header} must name the peer's node (a DNS-1123 subdomain)`, path: header };
    if (this.#wss.clients.size + this.#upgrading >= this.#tuning.maxConnections) return { status: 503, code: "too_many_connections", message: `at most ${this.#tuning.maxConnections} peers; retry later`, path: "" };
    return undefined;
  }

  #open(name: string, ws: WebSocket): void {
    const { log, metrics } = this.#deps;
    // Upgraded while the server was closing: nothing would serve it.
    if (this.#abort.signal.aborted) return ws.terminate();
    const previous = this.#peers.get(name);
    if (previous) previous.session.close(CLOSE_REPLACED, REPLACED_REASON);
    const session = new PeerSession(name, ws, { counted: (result) => this.#countDown(result), delivered: (peer, seq) => this.#marks.record(peer, seq) }, this.#tuning.session);
    const peer: Peer = { ws, session, alive: true };
    this.#peers.set(name, peer);
    metrics.inc("edgeloop_channel_connects_total", { channel: this.#name });
    log("info", "channel peer connected", { channel: this.#name, peer: name, ...(previous ? { replaced: true } : {}) });
    const upstream = this.#queueOf(name);
    upstream.attach(ws);
    ws.on("pong", () => (peer.alive = true));
    ws.on("message", (data: RawData) => upstream.push(text(data)));
    ws.on("error", (error: Error) => log("warn", "channel socket error", { channel: this.#name, peer: name, error: error.message }));
    ws.on("close", (code: number, reason: Buffer) => this.#closed(name, peer, code, reason.toString("utf8")));
    void this.#connect(session);
  }

  #closed(name: string, peer: Peer, code: number, reason: string): void {
    peer.session.ended();
    if (this.#peers.get(name) !== peer) return;
    this.#peers.delete(name);
    const upstream = this.#upstream.get(name);
    upstream?.attach(undefined);
    if (upstream && upstream.size === 0) this.#upstream.delete(name);
    this.#deps.log("info", "channel peer disconnected", { channel: this.#name, peer: name, code, ...(reason ? { reason } : {}) });
  }

  /** Calls connect until answered, while the session lasts; the answer starts its writes. */
  async #connect(session: PeerSession): Promise<void> {
    const backoff = new Backoff(this.#tuning.backoff);
    const signal = this.#abort.signal;
    while (!session.closed && !signal.aborted) {
      try {
        const answer = await this.#deps.worker.channelConnect(this.#name, { peer: session.peer, now: new Date().toISOString() }, signal);
        session.connected(BigInt(answer.from));
        return;
      } catch (error) {
        if (session.closed || signal.aborted) return;
        const delay = backoff.next();
        this.#deps.log("warn", "channel connect failed, retrying", { channel: this.#name, peer: session.peer, error: String(error), retryInMs: delay });
        await pause(delay, signal);
      }
    }
  }

  /** The peer's upstream queue, made on its first socket and kept while it holds frames. */
  #queueOf(peer: string): UpstreamQueue {
    let queue = this.#upstream.get(peer);
    if (queue) return queue;
    queue = new UpstreamQueue({
      channel: this.#name,
      peer,
      receive: (request, signal) => this.#deps.worker.channelReceive(this.#name, request, signal),
      apply: (actions) => this.#apply(actions),
      newId: () => `${this.#run}-${++this.#frameIds}`,
      counted: (result) => this.#countUp(result),
      log: this.#deps.log,
      signal: this.#abort.signal,
      backoff: this.#tuning.backoff,
      highWater: this.#tuning.highWater,
      drained: () => {
        if (!this.#peers.has(peer)) this.#upstream.delete(peer);
      },
    });
    this.#upstream.set(peer, queue);
    return queue;
  }

  /** Applies an answer's actions within its controller's permissions (as the outbox drainer does an entry's plan). */
  #apply(actions: Action[]): Promise<ApplyResult> {
    if (actions.length === 0) return Promise.resolve({ ok: true, failed: 0 });
    const controller = this.#deps.controller();
    if (!controller) {
      this.#deps.log("warn", "channel actions of no declared controller refused", { channel: this.#name, actions: actions.length });
      return Promise.resolve({ ok: true, failed: actions.length });
    }
    return this.#deps.plans.apply({ actions }, { controller, scope: {}, target: { controller: controller.name } });
  }

  /** Pings every peer; one that has not answered the last ping is terminated. */
  #ping(): void {
    for (const peer of this.#peers.values()) {
      if (!peer.alive) {
        peer.session.ended();
        peer.ws.terminate();
        continue;
      }
      peer.alive = false;
      peer.ws.ping();
    }
  }

  #countDown(result: DownResult): void {
    this.#deps.metrics.inc("edgeloop_channel_frames_total", { channel: this.#name, direction: "down", result });
  }

  #countUp(result: UpResult): void {
    this.#deps.metrics.inc("edgeloop_channel_frames_total", { channel: this.#name, direction: "up", result });
  }
}

/** A frame as text (a binary frame read as UTF-8). */
function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}

function errorBody(code: string, message: string, path: string): { error: { code: string; message: string; path: string } } {
  return { error: { code, message, path } };
}

const REASONS: Record<number, string> = { 400: "Bad Request", 404: "Not Found", 503: "Service Unavailable" };

/** Answers an upgrade request with a JSON error and closes the socket. */
function reject(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}
