import assert from "node:assert/strict";
import { createServer, connect, type AddressInfo, type Server, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { waitFor } from "../../../cli/wait.ts";
import { LinkShaper, WINDOW_BYTES } from "./shaper.ts";
import { parseLinkSpec } from "./spec.ts";

/** An echo server: what the Worker would be, minus HTTP. */
let echo: Server;
let port: number;
/** Bytes the echo server received: what crossed the link towards it. */
let echoed = 0;

before(async () => {
  echo = createServer((socket) => {
    socket.on("data", (chunk: Buffer) => (echoed += chunk.length));
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  port = (echo.address() as AddressInfo).port;
});

/** Every link and socket a test opened: closed after the file, whether its test passed or not. */
const links: LinkShaper[] = [];
const sockets: Socket[] = [];

after(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(links.map((link) => link.stop()));
  echo.close();
});

async function shaper(spec: string, random?: () => number): Promise<LinkShaper> {
  const link = await LinkShaper.start({ target: { host: "127.0.0.1", port }, shape: parseLinkSpec(spec), ...(random ? { random } : {}) });
  links.push(link);
  return link;
}

async function open(link: LinkShaper): Promise<Socket> {
  const socket = connect({ host: "127.0.0.1", port: link.port, noDelay: true });
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  return socket;
}

/** Sends `bytes` and resolves, with the milliseconds it took, once they all came back. */
function roundTrip(socket: Socket, bytes: number): Promise<number> {
  const started = performance.now();
  let received = 0;
  return new Promise((resolve) => {
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received < bytes) return;
      socket.off("data", onData);
      resolve(performance.now() - started);
    };
    socket.on("data", onData);
    socket.write(Buffer.alloc(bytes, 1));
  });
}

test("each direction waits half the RTT; a new connection's first bytes wait two RTTs more (TCP and TLS handshakes)", { timeout: 30_000 }, async () => {
  const link = await shaper("rtt=100ms");
  const socket = await open(link);
  const first = await roundTrip(socket, 10);
  const second = await roundTrip(socket, 10);
  assert.ok(first >= 295 && first < 420, `first exchange ${first} ms, expected 3 RTTs`);
  assert.ok(second >= 98 && second < 180, `kept-alive exchange ${second} ms, expected 1 RTT`);
});

test("bandwidth is a queue: 1 MB each way at 16 mbit takes at least 0.5 s, and the counters see the bytes", { timeout: 30_000 }, async () => {
  const link = await shaper("bandwidth=16mbit");
  const socket = await open(link);
  const ms = await roundTrip(socket, 1_000_000);
  assert.ok(ms >= 490, `1 MB took ${ms} ms`);
  assert.equal(link.state.counters.bytesToWorker, 1_000_000);
  assert.equal(link.state.counters.bytesFromWorker, 1_000_000);
});

test("a lost segment holds its connection for a retransmission timeout (200 ms at the least)", { timeout: 30_000 }, async () => {
  const link = await shaper("rtt=10ms,loss=50%", () => 0);
  const socket = await open(link);
  await roundTrip(socket, 10);
  const ms = await roundTrip(socket, 10);
  assert.ok(ms >= 400 && ms < 600, `two lost segments (one each way) took ${ms} ms`);
  assert.ok(link.state.counters.retransmissions >= 2);
});

test("down: a connection is neither answered nor refused, what was in flight waits and goes on when the link is up", { timeout: 30_000 }, async () => {
  const link = await shaper("none");
  const socket = await open(link);
  await roundTrip(socket, 10);
  link.apply({ kind: "down" });
  const late = await open(link);
  const before = echoed;
  let answered = false;
  const reply = roundTrip(socket, 10).then((ms) => ((answered = true), ms));
  // Up, the link forwards what it reads at once: once it holds the 10 bytes, a link that were up would have sent them.
  await waitFor("the link to hold the 10 bytes", async () => link.state.counters.held, (held) => held >= 10, { timeoutMs: 5_000 });
  assert.equal(echoed, before, "nothing crossed a link that is down");
  assert.equal(answered, false);
  assert.equal(late.destroyed, false, "a connection opened while down is not refused");
  assert.equal(link.state.counters.open, 2);
  link.apply({ kind: "up" });
  await reply;
  assert.ok((await roundTrip(late, 10)) < 100, "a connection opened while down is carried once up");
});

test("a link that is down holds at most its window per connection: the sender is paused, not buffered without bound", { timeout: 30_000 }, async () => {
  const link = await shaper("none");
  const socket = await open(link);
  link.apply({ kind: "down" });
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 32; i += 1) socket.write(chunk);
  await waitFor("the link to hold its window", async () => link.state.counters.held, (held) => held >= WINDOW_BYTES, { timeoutMs: 10_000 });
  // Twenty turns of the event loop, each of which delivers what the kernel holds ready to a socket still reading.
  for (let turn = 0; turn < 20; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
  assert.ok(link.state.counters.held <= WINDOW_BYTES + 64 * 1024, `held ${link.state.counters.held} bytes`);
});

test("a new shape applies to what is sent from then on", { timeout: 30_000 }, async () => {
  const link = await shaper("none");
  const socket = await open(link);
  assert.ok((await roundTrip(socket, 10)) < 50);
  link.apply({ kind: "shape", shape: parseLinkSpec("rtt=120ms") });
  const ms = await roundTrip(socket, 10);
  assert.ok(ms >= 118 && ms < 220, `${ms} ms after the change`);
});

test("the 5xx fault answers every request 503 itself; reset cuts each answer halfway; up clears the fault", { timeout: 30_000 }, async () => {
  const link = await shaper("none");
  link.apply({ kind: "fault", fault: "5xx" });
  const socket = await open(link);
  const answer = await new Promise<string>((resolve) => {
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    socket.on("end", () => resolve(text));
    socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
  });
  assert.match(answer, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  assert.match(answer, /link fault: 503 \(upstream\)$/);
  link.apply({ kind: "fault", fault: "reset" });
  const cut = await open(link);
  const received = await new Promise<{ bytes: number; error: string }>((resolve) => {
    let bytes = 0;
    cut.on("data", (chunk: Buffer) => (bytes += chunk.length));
    cut.on("error", (error: NodeJS.ErrnoException) => resolve({ bytes, error: error.code ?? "" }));
    cut.on("close", () => resolve({ bytes, error: "closed" }));
    cut.write(Buffer.alloc(1_000, 1));
  });
  assert.ok(received.bytes > 0 && received.bytes < 1_000, `${received.bytes} of 1,000 bytes, then ${received.error}`);
  assert.equal(received.error, "ECONNRESET");
  link.apply({ kind: "up" });
  assert.equal(link.state.fault, undefined);
  assert.ok((await roundTrip(await open(link), 10)) < 100);
});
