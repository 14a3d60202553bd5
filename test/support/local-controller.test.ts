/**
 * The test LocalController against a loopback WebSocket server standing in for the GM:
 * what it writes (byte for byte what upstream's Go LC writes: the frames below were
 * produced by encoding/json with upstream's structs, go1.26), what it does with what it
 * reads, and how it redials.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { afterEach, test } from "node:test";
import { WebSocketServer, type WebSocket } from "ws";
import { waitFor } from "../../cli/wait.ts";
import { decodeFrame, encodeMessage, HELLO, LocalController, trainingContent } from "./local-controller.ts";
import { GoStruct } from "./go-json.ts";

/** Golden frames: upstream's structs through `json.NewEncoder(w).Encode` (gorilla's WriteJSON). */
const GO = {
  hello: '{"namespace":"","resourceKind":"","resourceName":"","operation":""}\n',
  flContent: '{"phase":"train","status":"running","output":{"models":[{"format":"pb","metrics":{"accuracy":0.93,"loss":1e-7,"note":"a\\u003cb\\u0026c\\u003ed\\u2028","recall":0.5},"url":"/models/r3"}],"ownerInfo":{"currentRound":3,"updateTime":"2026-11-27T13:00:00Z"}}}',
  flMessage:
    '{"header":{"namespace":"default","resourceKind":"federatedlearningjob","resourceName":"surface-defect-detection","operation":"status"},"content":"eyJwaGFzZSI6InRyYWluIiwic3RhdHVzIjoicnVubmluZyIsIm91dHB1dCI6eyJtb2RlbHMiOlt7ImZvcm1hdCI6InBiIiwibWV0cmljcyI6eyJhY2N1cmFjeSI6MC45MywibG9zcyI6MWUtNywibm90ZSI6ImFcdTAwM2NiXHUwMDI2Y1x1MDAzZWRcdTIwMjgiLCJyZWNhbGwiOjAuNX0sInVybCI6Ii9tb2RlbHMvcjMifV0sIm93bmVySW5mbyI6eyJjdXJyZW50Um91bmQiOjMsInVwZGF0ZVRpbWUiOiIyMDI2LTExLTI3VDEzOjAwOjAwWiJ9fX0="}\n',
  datasetMessage: '{"header":{"namespace":"default","resourceKind":"dataset","resourceName":"edge1-data","operation":"status"},"content":"eyJudW1iZXJPZlNhbXBsZXMiOjQyfQ=="}\n',
  nilOutput: '{"header":{"namespace":"ns","resourceKind":"federatedlearningjob","resourceName":"j","operation":"status"},"content":"eyJwaGFzZSI6InRyYWluIiwic3RhdHVzIjoiY29tcGxldGVkIiwib3V0cHV0IjpudWxsfQ=="}\n',
  nilContent: '{"header":{"namespace":"ns","resourceKind":"model","resourceName":"m","operation":"delete"},"content":null}\n',
};

const ROUND = { round: 3, updateTime: "2026-11-27T13:00:00Z", models: [{ url: "/models/r3", format: "pb", metrics: { recall: 0.5, accuracy: 0.93, loss: 1e-7, note: "a<b&c>d\u2028" } }] };

/** A stand-in GM: records each connection's Node-Name and frames; can send and drop. */
interface FakeGm {
  readonly address: string;
  readonly connections: Array<{ node: string; frames: string[]; socket: WebSocket }>;
  close(): Promise<void>;
}

const servers: FakeGm[] = [];
const lcs: LocalController[] = [];

async function fakeGm(port = 0): Promise<FakeGm> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const connections: FakeGm["connections"] = [];
  wss.on("connection", (socket, request) => {
    const connection = { node: String(request.headers["node-name"]), frames: [] as string[], socket };
    connections.push(connection);
    socket.on("message", (data) => connection.frames.push(String(data)));
  });
  const gm: FakeGm = {
    address: `127.0.0.1:${(wss.address() as AddressInfo).port}`,
    connections,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
  servers.push(gm);
  return gm;
}

function lc(gmAddress: string, retryIntervalMs = 50): LocalController {
  const controller = new LocalController({ gmAddress, nodeName: "edge1", retryIntervalMs }).start();
  lcs.push(controller);
  return controller;
}

/** A GM → LC message as the GM's Go side writes it (the object's JSON, base64 as a []byte). */
function gmMessage(operation: string, resourceKind: string, name: string, object?: unknown): string {
  return JSON.stringify({ header: { namespace: "default", resourceKind, resourceName: name, operation }, content: object === undefined ? null : Buffer.from(JSON.stringify(object)).toString("base64") }) + "\n";
}

afterEach(async () => {
  for (const controller of lcs.splice(0)) await controller.stop();
  for (const gm of servers.splice(0)) await gm.close();
});

test("status contents and messages are byte for byte what upstream's Go LC writes", () => {
  assert.equal(HELLO, GO.hello);
  const content = trainingContent(ROUND);
  assert.equal(encodeMessage({ namespace: "default", resourceKind: "federatedlearningjob", resourceName: "surface-defect-detection", operation: "status" }, content), GO.flMessage);
  assert.equal(Buffer.from(JSON.parse(GO.flMessage).content, "base64").toString(), GO.flContent);
  assert.equal(encodeMessage({ namespace: "default", resourceKind: "dataset", resourceName: "edge1-data", operation: "status" }, new GoStruct([["numberOfSamples", 42]])), GO.datasetMessage);
  const completed = new GoStruct([
    ["phase", "train"],
    ["status", "completed"],
    ["output", null],
  ]);
  assert.equal(encodeMessage({ namespace: "ns", resourceKind: "federatedlearningjob", resourceName: "j", operation: "status" }, completed), GO.nilOutput);
  assert.equal(encodeMessage({ namespace: "ns", resourceKind: "model", resourceName: "m", operation: "delete" }, undefined), GO.nilContent);
});

test("decodes frames as Go's ReadJSON does: keys case-insensitively, content standard base64 or null; anything else is an error", () => {
  const decoded = decodeFrame('{"Header":{"NameSpace":"a","RESOURCEKIND":"model","resourceName":"m","operation":"insert"},"content":"e30=","extra":1}');
  assert.ok(!(decoded instanceof Error));
  assert.deepEqual(decoded.header, { namespace: "a", resourceKind: "model", resourceName: "m", operation: "insert" });
  assert.equal(decoded.content?.toString(), "{}");
  const nil = decodeFrame(GO.nilContent);
  assert.ok(!(nil instanceof Error) && nil.content === null);
  assert.ok(decodeFrame("not json") instanceof Error);
  assert.ok(decodeFrame('{"header":{"namespace":1}}') instanceof Error, "a number where Go has a string");
  assert.ok(decodeFrame('{"content":"e30"}') instanceof Error, "unpadded: not StdEncoding");
  assert.ok(decodeFrame('{"content":"e3-_"}') instanceof Error, "URL alphabet: not StdEncoding");
});

test("dials with Node-Name, writes the empty header first, then what the managers queued, in order", async () => {
  const gm = await fakeGm();
  const controller = new LocalController({ gmAddress: gm.address, nodeName: "edge1", retryIntervalMs: 50 });
  lcs.push(controller);
  // Queued before any connection (upstream's SendMessageChannel): written after the header.
  controller.reportTraining({ namespace: "default", job: "surface-defect-detection", ...ROUND });
  controller.send({ namespace: "default", resourceKind: "dataset", resourceName: "edge1-data" }, new GoStruct([["numberOfSamples", 42]]));
  controller.start();
  await waitFor("three frames", () => gm.connections[0]?.frames.length ?? 0, (n) => n === 3);
  assert.equal(gm.connections[0]?.node, "edge1");
  assert.deepEqual(gm.connections[0]?.frames, [GO.hello, GO.flMessage, GO.datasetMessage]);
  assert.equal(controller.counters.framesSent, 3);
});

test("insert upserts, delete removes, update is refused as an unknown operation, an unregistered kind is ignored", async () => {
  const gm = await fakeGm();
  const controller = lc(gm.address);
  await controller.until("connected", (c) => c.connected);
  const socket = gm.connections[0]?.socket;
  assert.ok(socket);
  const job = { apiVersion: "sedna.io/v1alpha1", kind: "federatedlearningjob", metadata: { name: "fl", namespace: "default" }, spec: { round: 1 } };
  socket.send(gmMessage("insert", "federatedlearningjob", "fl", job));
  socket.send(gmMessage("insert", "federatedlearningjob", "fl", { ...job, spec: { round: 2 } }));
  socket.send(gmMessage("update", "federatedlearningjob", "fl", { ...job, spec: { round: 3 } }));
  socket.send(gmMessage("insert", "dataset", "d", { kind: "dataset", metadata: { name: "d", namespace: "default" }, spec: { nodeName: "edge1" } }));
  socket.send(gmMessage("insert", "objectsearchservice", "o", {}));
  socket.send(gmMessage("insert", "model", "m", undefined));
  await controller.until("six frames read", (c) => c.counters.framesReceived === 6);
  assert.deepEqual(controller.holding("federatedlearningjob", "default", "fl")?.["spec"], { round: 2 }, "the second insert replaced the first; the update changed nothing");
  assert.deepEqual({ ...controller.counters, connects: 0, framesSent: 0 }, { connects: 0, dialFailures: 0, framesReceived: 6, inserts: 3, deletes: 0, unknownOperations: 1, unknownKinds: 1, badContents: 1, malformed: 0, framesSent: 0 });
  socket.send(gmMessage("delete", "federatedlearningjob", "fl"));
  socket.send(gmMessage("delete", "federatedlearningjob", "never-sent"));
  await controller.until("the job removed", (c) => c.held("federatedlearningjob").size === 0);
  assert.equal(controller.held("dataset").size, 1);
  controller.reportDatasetSamples("default", "d", 7);
  assert.throws(() => controller.reportDatasetSamples("default", "other", 1), /holds no Dataset default\/other/);
  await waitFor("the dataset status", () => gm.connections[0]?.frames.at(-1) ?? "", (frame) => frame.includes('"operation":"status"'));
  const status = decodeFrame(gm.connections[0]?.frames.at(-1) ?? "");
  assert.ok(!(status instanceof Error));
  assert.deepEqual(status.header, { namespace: "default", resourceKind: "dataset", resourceName: "d", operation: "status" });
  assert.equal(status.content?.toString(), '{"numberOfSamples":7}');
});

test("redials at once when the socket drops, and writes the header again first; keeps what it holds", async () => {
  const gm = await fakeGm();
  const controller = lc(gm.address, 60_000);
  await controller.until("connected", (c) => c.connected);
  gm.connections[0]?.socket.send(gmMessage("insert", "model", "m", { metadata: { name: "m" } }));
  await controller.until("the model", (c) => c.held("model").size === 1);
  gm.connections[0]?.socket.terminate();
  // A retry interval of a minute: only the immediate redial can connect in time.
  await waitFor("a second connection", () => gm.connections.length, (n) => n === 2, { timeoutMs: 5_000 });
  await controller.until("connected again", (c) => c.connected && c.counters.connects === 2);
  controller.reportTraining({ namespace: "default", job: "surface-defect-detection", ...ROUND });
  await waitFor("hello then the status", () => gm.connections[1]?.frames ?? [], (frames) => frames.length === 2);
  assert.deepEqual(gm.connections[1]?.frames, [GO.hello, GO.flMessage]);
  assert.equal(controller.held("model").size, 1, "what it holds survives the reconnect (upstream keeps it in its db)");
  controller.drop();
  await waitFor("a third connection", () => gm.connections.length, (n) => n === 3, { timeoutMs: 5_000 });
});

test("a failed dial is retried after the interval; a frame it cannot decode ends the connection and it redials", async () => {
  const probe = await fakeGm();
  const port = Number(probe.address.split(":")[1]);
  await probe.close();
  servers.splice(0);
  const controller = lc(`127.0.0.1:${port}`, 100);
  await controller.until("two failed dials", (c) => c.counters.dialFailures >= 2);
  assert.equal(controller.connected, false);
  const gm = await fakeGm(port);
  await controller.until("connected after a retry", (c) => c.connected, 5_000);
  gm.connections[0]?.socket.send("{not json");
  await controller.until("the malformed frame counted and a new socket", (c) => c.counters.malformed === 1 && c.counters.connects === 2 && c.connected, 5_000);
  assert.equal(gm.connections.length, 2);
  // The LC counts a connect once it has written the header; the server may read it a moment later.
  await waitFor("the header on the new socket", () => gm.connections[1]?.frames[0], (frame) => frame === GO.hello);
});
