/**
 * The channel server on loopback with real `ws` clients and a fake Worker (in process,
 * each call answered when the test says): the upgrade's refusals, the connect's sequence,
 * the feed's frames in order, upstream frames to receive and their actions to apply,
 * replacement, the frame size bound, the heartbeat, and the metrics.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { WebSocket } from "ws";
import { waitFor } from "../../cli/wait.ts";
import { ChannelSpec, feedOf, type ChannelConnect, type ChannelConnected, type ChannelFeed, type ChannelFeedRequest, type ChannelReceive, type ChannelReceiveAnswer, type ControllerManifest, type Plan } from "../../protocol/index.ts";
import type { PlanContext, PlanSink } from "../apply/guard.ts";
import { Metrics } from "../ops/metrics.ts";
import { CHANNEL_TUNING, ChannelServer, CLOSE_REPLACED, type ChannelTuning } from "./channel-server.ts";
import { slowloris } from "../../test/support/slowloris.ts";

const spec = ChannelSpec.parse({ name: "edge", endpoint: "edgeEndpoint", port: 9000, peerHeader: "Node-Name", maxFrameBytes: 2048 });
const controller = { name: "edge-controller", delivery: "events", watches: [], webhooks: [], apis: [], channels: [spec], permissions: [], related: [] } as unknown as ControllerManifest;

/** A call the fake Worker holds until the test answers it. */
interface Held<Req, Ans> {
  readonly request: Req;
  answer(with_: Ans | Error): void;
}

/** The fake Worker: every call recorded and held. */
class FakeWorker {
  readonly connects: Held<ChannelConnect, ChannelConnected>[] = [];
  readonly feeds: Held<ChannelFeedRequest, ChannelFeed>[] = [];
  readonly receives: Held<ChannelReceive, ChannelReceiveAnswer>[] = [];

  channelConnect = (_name: string, request: ChannelConnect): Promise<ChannelConnected> => this.#hold(this.connects, request);
  channelFeed = (_name: string, request: ChannelFeedRequest, signal?: AbortSignal): Promise<ChannelFeed> => {
    const answer = this.#hold(this.feeds, structuredClone(request));
    signal?.addEventListener("abort", () => this.feeds.at(-1)?.answer(new Error("aborted")), { once: true });
    return answer;
  };
  channelReceive = (_name: string, request: ChannelReceive): Promise<ChannelReceiveAnswer> => this.#hold(this.receives, request);

  #hold<Req, Ans>(list: Held<Req, Ans>[], request: Req): Promise<Ans> {
    return new Promise((resolve, reject) => list.push({ request, answer: (a) => (a instanceof Error ? reject(a) : resolve(a)) }));
  }
}

const servers: ChannelServer[] = [];
const clients: WebSocket[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Started {
  readonly server: ChannelServer;
  readonly worker: FakeWorker;
  readonly applied: { plan: Plan; context: PlanContext }[];
  readonly metrics: Metrics;
  readonly url: string;
  leading: boolean;
}

async function start(tuning: Partial<ChannelTuning> = {}): Promise<Started> {
  const worker = new FakeWorker();
  const applied: Started["applied"] = [];
  const plans: PlanSink = {
    apply: (plan, context) => (applied.push({ plan, context }), Promise.resolve({ ok: true, failed: 0 })),
    applyAction: () => Promise.resolve(),
  };
  const metrics = new Metrics();
  const state = { leading: true };
  const server = new ChannelServer({ spec, controller: () => controller, worker, plans, metrics, log: () => undefined, leading: () => state.leading, waitSeconds: 20, tuning: { backoff: { firstMs: 1, maxMs: 5 }, ...tuning } });
  servers.push(server);
  const port = await server.listen(0, "127.0.0.1");
  metrics.gauge("edgeloop_channel_peers", { channel: "edge" }, () => server.peers);
  return {
    server,
    worker,
    applied,
    metrics,
    url: `ws://127.0.0.1:${port}/`,
    get leading() {
      return state.leading;
    },
    set leading(value: boolean) {
      state.leading = value;
    },
  };
}

/** A client dialing as `peer`; resolves once open, with what it receives. */
async function dial(url: string, peer: string, options: { autoPong?: boolean } = {}): Promise<{ ws: WebSocket; received: string[]; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(url, { headers: { "Node-Name": peer }, ...options });
  clients.push(ws);
  const received: string[] = [];
  ws.on("message", (data: Buffer) => received.push(data.toString("utf8")));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString("utf8") })));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, received, closed };
}

/** The status and body of a refused upgrade. */
function refused(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    ws.on("open", () => reject(new Error("the upgrade was accepted")));
    ws.on("error", () => undefined);
  });
}

test("upgrades are refused: another path 404, no valid peer header 400 naming it, a standby 503, over the connection bound 503", async () => {
  const s = await start({ maxConnections: 1 });
  assert.equal((await refused(`${s.url}other`, { "Node-Name": "node-a" })).status, 404);
  const missing = await refused(s.url, {});
  assert.equal(missing.status, 400);
  assert.equal((JSON.parse(missing.body) as { error: { path: string } }).error.path, "Node-Name");
  assert.equal((await refused(s.url, { "Node-Name": "Not_A_Node" })).status, 400);
  s.leading = false;
  assert.equal((await refused(s.url, { "Node-Name": "node-a" })).status, 503);
  s.leading = true;
  await dial(s.url, "node-a");
  assert.equal((await refused(s.url, { "Node-Name": "node-b" })).status, 503);
  const plain = await fetch(s.url.replace("ws:", "http:"));
  assert.equal(plain.status, 426);
  await plain.text();
});

test("a peer gets the feed's frames from its connect's sequence on, in order (those before the answer held, older ones dropped); completed writes are reported", async () => {
  const s = await start();
  s.server.lead();
  await waitFor("the first poll", () => s.worker.feeds.length, (n) => n === 1);
  const a = await dial(s.url, "node-a");
  await waitFor("the connect", () => s.worker.connects.length, (n) => n === 1);
  assert.equal(s.worker.connects[0]?.request.peer, "node-a");
  // The feed delivers before the connect is answered: an older frame, and the start of the state.
  s.worker.feeds[0]?.answer(feedOf("11", [{ seq: "10", peer: "node-a", data: "old" }, { seq: "11", peer: "node-a", data: "state-1" }]));
  await waitFor("the second poll", () => s.worker.feeds.length, (n) => n === 2);
  assert.deepEqual(s.worker.feeds[1]?.request, { cursor: "11", waitSeconds: 20, delivered: [] });
  assert.deepEqual(a.received, [], "held until the connect answer");
  s.worker.connects[0]?.answer({ from: "11" });
  s.worker.feeds[1]?.answer(feedOf("13", [{ seq: "12", peer: "node-a", data: "state-2" }, { seq: "13", peer: "node-b", data: "nobody" }]));
  await waitFor("the frames", () => a.received, (r) => r.length === 2);
  assert.deepEqual(a.received, ["state-1", "state-2"]);
  await waitFor("the third poll", () => s.worker.feeds.length, (n) => n === 3);
  assert.deepEqual(s.worker.feeds[2]?.request, { cursor: "13", waitSeconds: 20, delivered: [{ peer: "node-a", seq: "12" }] });
  const metrics = await s.metrics.render();
  assert.match(metrics, /edgeloop_channel_frames_total\{channel="edge",direction="down",result="sent"\} 2/);
  assert.match(metrics, /edgeloop_channel_frames_total\{channel="edge",direction="down",result="dropped"\} 2/);
  assert.match(metrics, /edgeloop_channel_connects_total\{channel="edge"\} 1/);
  assert.match(metrics, /edgeloop_channel_peers\{channel="edge"\} 1/);
});

test("a connect that fails is retried while the socket is open", async () => {
  const s = await start();
  await dial(s.url, "node-a");
  await waitFor("the connect", () => s.worker.connects.length, (n) => n === 1);
  s.worker.connects[0]?.answer(new Error("worker down"));
  await waitFor("the connect again", () => s.worker.connects.length, (n) => n === 2);
  assert.notEqual(s.worker.connects[1]?.request.now, undefined);
});

test("what a peer sends goes to receive in its order, one at a time, and the answer's actions are applied within the declaring controller", async () => {
  const s = await start();
  const a = await dial(s.url, "node-a");
  a.ws.send("first");
  a.ws.send(Buffer.from("second"));
  await waitFor("the first receive", () => s.worker.receives.length, (n) => n === 1);
  assert.deepEqual([s.worker.receives[0]?.request.peer, s.worker.receives[0]?.request.data], ["node-a", "first"]);
  const action = { type: "event" as const, target: { apiVersion: "v1", kind: "Node", name: "node-a" }, eventType: "Normal" as const, reason: "Seen", message: "status" };
  s.worker.receives[0]?.answer({ accepted: true, actions: [action] });
  await waitFor("the second receive", () => s.worker.receives.length, (n) => n === 2);
  assert.equal(s.worker.receives[1]?.request.data, "second", "a binary frame as UTF-8");
  assert.notEqual(s.worker.receives[1]?.request.id, s.worker.receives[0]?.request.id);
  s.worker.receives[1]?.answer({ accepted: false, reason: "malformed", actions: [] });
  await waitFor("applied", () => s.applied.length, (n) => n === 1);
  assert.deepEqual(s.applied[0]?.plan.actions, [action]);
  assert.equal(s.applied[0]?.context.controller.name, "edge-controller");
  await waitFor("counted", () => s.metrics.render(), (text) => /direction="up",result="refused"\} 1/.test(text));
  assert.match(await s.metrics.render(), /direction="up",result="accepted"\} 1/);
});

test("a new socket of the same peer replaces the old (closed 4000), and frames go to the new one", async () => {
  const s = await start();
  s.server.lead();
  const first = await dial(s.url, "node-a");
  const second = await dial(s.url, "node-a");
  const closed = await first.closed;
  assert.equal(closed.code, CLOSE_REPLACED);
  assert.match(closed.reason, /replaced/);
  assert.equal(s.server.peers, 1);
  await waitFor("two connects", () => s.worker.connects.length, (n) => n === 2);
  s.worker.connects[1]?.answer({ from: "1" });
  s.worker.connects[0]?.answer({ from: "1" });
  await waitFor("the first poll", () => s.worker.feeds.length, (n) => n === 1);
  s.worker.feeds[0]?.answer(feedOf("1", [{ seq: "1", peer: "node-a", data: "to the new socket" }]));
  await waitFor("the frame", () => second.received, (r) => r.length === 1);
  assert.deepEqual(first.received, []);
});

test("a frame over the channel's bound closes that peer's socket (1009) and no other", async () => {
  const s = await start();
  const big = await dial(s.url, "node-a");
  const other = await dial(s.url, "node-b");
  big.ws.send("x".repeat(4096));
  assert.equal((await big.closed).code, 1009);
  await waitFor("node-a gone", () => s.server.peers, (n) => n === 1);
  assert.equal(other.ws.readyState, WebSocket.OPEN);
  other.ws.send("still here");
  await waitFor("node-b's frame", () => s.worker.receives.map((r) => r.request.data), (d) => d.includes("still here"));
});

test("a peer that does not answer pings is terminated; one that does stays", async () => {
  const s = await start({ pingMs: 50 });
  const silent = await dial(s.url, "node-a", { autoPong: false });
  const lively = await dial(s.url, "node-b");
  await silent.closed;
  await waitFor("node-a gone", () => s.server.peers, (n) => n === 1);
  assert.equal(lively.ws.readyState, WebSocket.OPEN);
});

test("a handshake the WebSocket server refuses does not hold a place under the connection bound", async () => {
  const s = await start({ maxConnections: 1 });
  const port = Number(new URL(s.url).port);
  const { request } = await import("node:http");
  for (let i = 0; i < 3; i++) {
    const status = await new Promise<number>((resolve, reject) => {
      // An upgrade without Sec-WebSocket-Key: ws answers 400 and never opens it.
      const req = request({ host: "127.0.0.1", port, path: "/", headers: { connection: "Upgrade", upgrade: "websocket", "node-name": "node-a" } });
      req.on("response", (response) => (response.resume(), resolve(response.statusCode ?? 0)));
      req.on("upgrade", () => reject(new Error("upgraded")));
      req.on("error", reject);
      req.end();
    });
    assert.equal(status, 400);
  }
  await dial(s.url, "node-a");
});

test("a slowloris on the channel port (an upgrade's headers a line at a time) is closed within the header limit (issue 28, finding 7e)", async () => {
  const connections = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, checkIntervalMs: 100, maxConnections: 64 };
  const { url } = await start({ connections });
  const held = await slowloris(Number(new URL(url).port), "headers", 50, 3_000);
  assert.ok(held.heldMs !== undefined && held.heldMs < 1_000, `held ${held.heldMs} ms`);
});

test("the channel port's connection cap leaves room above the peers for the 503s that refuse more", () => {
  assert.equal(CHANNEL_TUNING.connections.maxConnections, CHANNEL_TUNING.maxConnections + 1_024);
});
