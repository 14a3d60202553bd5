/** The channel protocols on the wire, as a client other than kubectl speaks them: v4, base64, v5's stdin close, SPDY refused. */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { WebSocket, type RawData } from "ws";
import { waitFor } from "../../cli/wait.ts";
import { startSim, type RunningSim } from "../index.ts";
import { podStreamTarget } from "./pod-streams.ts";

let sim: RunningSim;

before(async () => {
  sim = await startSim({ port: 0, nodes: 1, heartbeatSeconds: 1 });
  await sim.cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "infinity"] }] } } as never);
  await waitFor("pod web Running", () => sim.cluster.get({ apiVersion: "v1", kind: "Pod" }, "default", "web"), (pod) => (pod as { status?: { phase?: string } }).status?.phase === "Running");
});

after(() => sim.stop());

/** Opens an exec socket and collects every message until the server closes it. */
function session(protocol: string, query: string, send: (socket: WebSocket) => void = () => undefined): Promise<{ protocol: string; messages: RawData[] }> {
  const url = `${sim.url.replace("http", "ws")}/api/v1/namespaces/default/pods/web/exec?${query}`;
  const socket = new WebSocket(url, [protocol]);
  const messages: RawData[] = [];
  socket.on("message", (data: RawData) => messages.push(data));
  socket.on("open", () => send(socket));
  return new Promise((resolve, reject) => {
    socket.on("close", () => resolve({ protocol: socket.protocol, messages }));
    socket.on("error", reject);
  });
}

test("podStreamTarget names exec, attach and portforward of a core pod only", () => {
  assert.deepEqual(podStreamTarget("/api/v1/namespaces/ns/pods/web/exec"), { namespace: "ns", pod: "web", subresource: "exec" });
  assert.equal(podStreamTarget("/api/v1/namespaces/ns/pods/web/log"), undefined);
  assert.equal(podStreamTarget("/apis/apps/v1/namespaces/ns/pods/web/exec"), undefined);
  assert.equal(podStreamTarget("/api/v1/namespaces/%E0%A4%A/pods/web/exec"), undefined);
});

test("v4.channel.k8s.io: binary frames, the Status last on channel 3", async () => {
  const { protocol, messages } = await session("v4.channel.k8s.io", "command=sh&command=-c&command=echo%20hi%3B%20exit%207&stdout=true&stderr=true");
  assert.equal(protocol, "v4.channel.k8s.io");
  const frames = messages.map((m) => Buffer.from(m as Buffer));
  assert.deepEqual(frames[0], Buffer.from([1, ...Buffer.from("hi\n")]));
  const last = frames.at(-1) ?? Buffer.alloc(0);
  assert.equal(last[0], 3);
  const status = JSON.parse(last.subarray(1).toString()) as { reason: string; details: { causes: unknown[] } };
  assert.equal(status.reason, "NonZeroExitCode");
  assert.deepEqual(status.details.causes, [{ reason: "ExitCode", message: "7" }]);
});

test("base64.channel.k8s.io: text frames, the channel as a digit", async () => {
  const { messages } = await session("base64.channel.k8s.io", "command=echo&command=hi&stdout=true");
  const texts = messages.map((m) => m.toString());
  assert.equal(texts[0], `1${Buffer.from("hi\n").toString("base64")}`);
  assert.equal(JSON.parse(Buffer.from(texts.at(-1)?.slice(1) ?? "", "base64").toString()).status, "Success");
});

test("v5.channel.k8s.io: stdin until the client's close signal", async () => {
  const { messages } = await session("v5.channel.k8s.io", "command=cat&stdin=true&stdout=true", (socket) => {
    socket.send(Buffer.from([0, ...Buffer.from("one\n")]));
    socket.send(Buffer.from([255, 0]));
  });
  const frames = messages.map((m) => Buffer.from(m as Buffer));
  assert.deepEqual(frames[0], Buffer.from([1, ...Buffer.from("one\n")]));
  assert.equal(JSON.parse(frames.at(-1)?.subarray(1).toString() ?? "").status, "Success");
});

test("an upgrade asked of any other path (curl's h2c) is served as a plain request", async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const call = request(`${sim.url}/version`, { headers: { connection: "Upgrade", upgrade: "h2c" } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    call.on("error", reject);
    call.end();
  });
  assert.equal(status, 200);
});

test("an SPDY upgrade is refused with a Status saying the sim speaks WebSocket", async () => {
  const url = `${sim.url}/api/v1/namespaces/default/pods/web/exec?command=true&stdout=true`;
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const call = request(url, { headers: { connection: "Upgrade", upgrade: "SPDY/3.1", "x-stream-protocol-version": "v4.channel.k8s.io" } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    call.on("error", reject);
    call.end();
  });
  assert.equal(status, 400);
  assert.match((JSON.parse(body) as { message: string }).message, /serves exec over WebSocket .* only, not SPDY\/3\.1/);
});

test("stopping the sim ends an open session (an upgraded socket the HTTP server no longer tracks)", async () => {
  const own = await startSim({ port: 0, nodes: 1, heartbeatSeconds: 1 });
  await own.cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "infinity"] }] } } as never);
  await waitFor("pod web Running", () => own.cluster.get({ apiVersion: "v1", kind: "Pod" }, "default", "web"), (pod) => (pod as { status?: { phase?: string } }).status?.phase === "Running");
  const socket = new WebSocket(`${own.url.replace("http", "ws")}/api/v1/namespaces/default/pods/web/exec?command=sleep&command=infinity&stdout=true`, ["v5.channel.k8s.io"]);
  await new Promise((resolve, reject) => socket.on("open", resolve).on("error", reject));
  const closed = new Promise((resolve) => socket.on("close", resolve));
  await own.stop();
  await closed;
});
