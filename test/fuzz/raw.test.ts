import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { test } from "node:test";
import { framingOutcome, sendBytes } from "./raw.ts";

/** A TCP server answering each connection with `answer` (after the first bytes arrive). */
async function serving(answer: (socket: Socket) => void): Promise<{ origin: string; server: Server }> {
  const server = createServer((socket) => socket.once("data", () => answer(socket)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { origin: `http://127.0.0.1:${address.port}`, server };
}

test("every status line on the connection is read: a server that answered two requests shows two", async (t) => {
  const { origin, server } = await serving((socket) => socket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"));
  t.after(() => server.close());
  const answer = await sendBytes({ origin }, new TextEncoder().encode("POST / HTTP/1.1\r\n\r\n"));
  assert.deepEqual(answer.statuses, [400, 201]);
  assert.equal(answer.ended, "closed");
});

test("a server that says nothing and keeps the connection is silent", async (t) => {
  const { origin, server } = await serving(() => undefined);
  t.after(() => server.close());
  const answer = await sendBytes({ origin }, new TextEncoder().encode("POST / HTTP/1.1\r\n"), 100);
  assert.deepEqual(answer.statuses, []);
  assert.equal(answer.ended, "silent");
});

test("outcomes: the worst final status counts, 1xx is interim, a close is a refusal, silence a hang unless a body was still to come", () => {
  assert.deepEqual(framingOutcome({ statuses: [400], ended: "closed", text: "" }, false), { kind: "status", status: 400 });
  assert.deepEqual(framingOutcome({ statuses: [400, 500], ended: "closed", text: "" }, false), { kind: "status", status: 500 });
  assert.deepEqual(framingOutcome({ statuses: [400, 501], ended: "closed", text: "" }, false), { kind: "status", status: 400 });
  assert.equal(framingOutcome({ statuses: [100], ended: "silent", text: "" }, true).kind, "closed");
  assert.equal(framingOutcome({ statuses: [100], ended: "silent", text: "" }, false).kind, "crash");
  assert.equal(framingOutcome({ statuses: [], ended: "reset", text: "" }, false).kind, "closed");
  assert.equal(framingOutcome({ statuses: [], ended: "silent", text: "" }, false).kind, "crash");
});
