/**
 * How an edge channel's frames should travel between the relay and the Worker (ADR 0028),
 * measured side by side in one workerd: the signed HTTP path the relay already speaks (an
 * HMAC-SHA256-checked POST per upstream frame, a long-polled feed for downstream frames)
 * against one WebSocket that a Durable Object accepts with the hibernation API (upgrade
 * checked once, frames unsigned on the socket). The same Durable Object work behind both:
 * one SQLite insert per frame.
 * Figures: an upstream frame's round trip one at a time (p50/p99), upstream frames per
 * second with 32 in flight, and a downstream frame's latency from the write that makes
 * it to its arrival at the relay (through a parked long-poll, or pushed on the socket).
 */
import { createHmac } from "node:crypto";
import { Miniflare } from "miniflare";
import WebSocket from "ws";
import type { Benchmark } from "../../scripts/bench.ts";
import { COMPATIBILITY_DATE } from "../../scripts/lib/worker.ts";
import { inPool, percentile, tenth } from "./util.ts";

const SECRET = "channel-transport-bench-secret";
const SEQUENTIAL = 1_000;
const CONCURRENT = 5_000;
const IN_FLIGHT = 32;
const PUSHES = 300;
/** A status frame's size, as an LC's FL round report is (~300 bytes of JSON, base64 inside). */
const FRAME = JSON.stringify({ header: { namespace: "default", resourceKind: "federatedlearningjob", resourceName: "job-1", operation: "status" }, content: Buffer.from(JSON.stringify({ phase: "train", status: "running", output: { models: [{ metrics: { accuracy: 0.91 } }], ownerInfo: { currentRound: 7, updateTime: "2026-11-27T13:00:00Z" } } })).toString("base64") });

/** The Worker under test: one Durable Object, reached both ways. Plain JS so that it needs no bundling. */
const SCRIPT = `
import { DurableObject } from "cloudflare:workers";
export class Hub extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS up (seq INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS down (seq INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL)");
    this.waiters = new Set();
  }
  receive(data) { return this.ctx.storage.sql.exec("INSERT INTO up (data) VALUES (?) RETURNING seq", data).one().seq; }
  append(data) {
    const seq = this.ctx.storage.sql.exec("INSERT INTO down (data) VALUES (?) RETURNING seq", data).one().seq;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
    for (const socket of this.ctx.getWebSockets()) socket.send(JSON.stringify({ seq, data }));
    return seq;
  }
  async feed(after, waitMs) {
    const read = () => this.ctx.storage.sql.exec("SELECT seq, data FROM down WHERE seq > ? ORDER BY seq LIMIT 500", after).toArray();
    let rows = read();
    if (rows.length === 0) {
      await new Promise((resolve) => { const timer = setTimeout(resolve, waitMs); this.waiters.add(() => { clearTimeout(timer); resolve(); }); });
      rows = read();
    }
    return rows;
  }
  async fetch() {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
  webSocketMessage(socket, message) {
    const { id, data } = JSON.parse(message);
    socket.send(JSON.stringify({ id, seq: this.receive(data) }));
  }
}
let key;
async function verified(request, env) {
  key ??= await crypto.subtle.importKey("raw", new TextEncoder().encode(env.SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const body = await request.arrayBuffer();
  const hex = request.headers.get("x-signature") ?? "";
  const signature = new Uint8Array(hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
  if (!(await crypto.subtle.verify("HMAC", key, signature, body))) throw new Error("bad signature");
  return new TextDecoder().decode(body);
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const hub = env.HUB.get(env.HUB.idFromName("hub"));
    if (url.pathname === "/socket") return hub.fetch(request);
    const body = await verified(request, env);
    if (url.pathname === "/receive") return Response.json({ seq: await hub.receive(body) });
    if (url.pathname === "/append") return Response.json({ seq: await hub.append(body) });
    if (url.pathname === "/feed") { const { after, waitMs } = JSON.parse(body); return Response.json(await hub.feed(after, waitMs)); }
    return new Response("no route", { status: 404 });
  },
};`;

/** A signed POST, as the relay's Worker client sends one (HMAC-SHA256 of the body, lower-case hex). */
async function post(base: string, path: string, body: string): Promise<unknown> {
  const signature = createHmac("sha256", SECRET).update(body).digest("hex");
  const response = await fetch(`${base}${path}`, { method: "POST", body, headers: { "x-signature": signature, "content-type": "application/json" } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** One socket to the Hub, with its answers matched to requests by id. */
class HubSocket {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, () => void>();
  #next = 0;
  onPush: (seq: number) => void = () => undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on("message", (raw: Buffer) => {
      const message = JSON.parse(raw.toString("utf8")) as { id?: number; seq: number };
      if (message.id === undefined) this.onPush(message.seq);
      else this.#pending.get(message.id)?.();
    });
  }

  static open(url: string): Promise<HubSocket> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new HubSocket(socket)));
      socket.once("error", reject);
    });
  }

  send(data: string): Promise<void> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, () => {
        this.#pending.delete(id);
        resolve();
      });
      this.#socket.send(JSON.stringify({ id, data }));
    });
  }

  close(): void {
    this.#socket.close();
  }
}

async function timed(count: number, one: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await one();
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b);
}

async function rate(count: number, one: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await inPool(Array.from({ length: count }, (_, i) => i), IN_FLIGHT, one);
  return count / ((performance.now() - start) / 1000);
}

/** From a signed append to the frame's arrival through a parked long-poll. */
async function pushByFeed(base: string): Promise<number[]> {
  const samples: number[] = [];
  let after = ((await post(base, "/append", "seed")) as { seq: number }).seq;
  for (let i = 0; i < PUSHES; i++) {
    const polled = post(base, "/feed", JSON.stringify({ after, waitMs: 20_000 })) as Promise<{ seq: number }[]>;
    // The poll must be parked before the write, as the relay's is between frames.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const start = performance.now();
    void post(base, "/append", FRAME);
    const rows = await polled;
    samples.push(performance.now() - start);
    after = rows.at(-1)?.seq ?? after;
  }
  return samples.sort((a, b) => a - b);
}

/** From a signed append to the frame's arrival on the hibernatable socket. */
async function pushBySocket(base: string, socket: HubSocket): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < PUSHES; i++) {
    const arrived = new Promise<void>((resolve) => (socket.onPush = () => resolve()));
    const start = performance.now();
    void post(base, "/append", FRAME);
    await arrived;
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b);
}

const bench: Benchmark = {
  name: "channel-transport",
  async run(report, progress) {
    const mf = new Miniflare({
      modules: true,
      script: SCRIPT,
      compatibilityDate: COMPATIBILITY_DATE,
      bindings: { SECRET },
      durableObjects: { HUB: { className: "Hub", useSQLite: true } },
      host: "127.0.0.1",
      port: 0,
    });
    try {
      const url = await mf.ready;
      const base = url.origin;
      const socket = await HubSocket.open(`${base.replace("http", "ws")}/socket`);
      // The two transports side by side: each metric under both prefixes.
      const figure = (metric: string, value: number, unit: string, transport: "signed_http" | "hibernatable_websocket"): void => report({ metric: `${transport}_${metric}`, value: tenth(value), unit });
      progress("warming up both paths");
      await timed(200, () => post(base, "/receive", FRAME));
      await timed(200, () => socket.send(FRAME));
      progress(`upstream: ${SEQUENTIAL} frames one at a time, each way`);
      const http = await timed(SEQUENTIAL, () => post(base, "/receive", FRAME));
      const ws = await timed(SEQUENTIAL, () => socket.send(FRAME));
      figure("upstream_frame_p50_ms", percentile(http, 50), "ms", "signed_http");
      figure("upstream_frame_p50_ms", percentile(ws, 50), "ms", "hibernatable_websocket");
      figure("upstream_frame_p99_ms", percentile(http, 99), "ms", "signed_http");
      figure("upstream_frame_p99_ms", percentile(ws, 99), "ms", "hibernatable_websocket");
      progress(`upstream: ${CONCURRENT} frames, ${IN_FLIGHT} in flight, each way`);
      figure("upstream_frames_per_second", await rate(CONCURRENT, () => post(base, "/receive", FRAME)), "frames/s", "signed_http");
      figure("upstream_frames_per_second", await rate(CONCURRENT, () => socket.send(FRAME)), "frames/s", "hibernatable_websocket");
      progress(`downstream: ${PUSHES} frames from the write to the relay, each way`);
      const feed = await pushByFeed(base);
      const pushed = await pushBySocket(base, socket);
      figure("downstream_frame_p50_ms", percentile(feed, 50), "ms", "signed_http");
      figure("downstream_frame_p50_ms", percentile(pushed, 50), "ms", "hibernatable_websocket");
      figure("downstream_frame_p99_ms", percentile(feed, 99), "ms", "signed_http");
      figure("downstream_frame_p99_ms", percentile(pushed, 99), "ms", "hibernatable_websocket");
      socket.close();
    } finally {
      await mf.dispose();
    }
  },
};

export default bench;
