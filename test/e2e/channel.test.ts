/**
 * An edge channel through the whole loop, with the stateless fixture channel `echo`
 * (test/fixtures/controllers/echo): the stack serves it on a port of its own and says
 * where; a peer's socket is accepted, its frames go through the relay to the Worker, and
 * a refused frame's Warning Event reaches the cluster; a bad upgrade is refused.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { WebSocket } from "ws";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { e2eStack, type E2EStack } from "./harness.ts";

let stack: E2EStack;
before(async () => {
  stack = await e2eStack();
});
after(async () => {
  await stack.stop();
});

async function metrics(): Promise<string> {
  return (await fetch(`${stack.relay.opsUrl}/metrics`)).text();
}

test("the stack serves every declared channel on loopback, on a port it chose, and the relay says the same", () => {
  const address = stack.channels.echo;
  assert.match(address ?? "", /^127\.0\.0\.1:\d+$/);
  assert.equal(stack.relay.channels.echo, address);
});

test("a peer's frames reach the Worker through the relay; a refused one is counted, and its Warning Event is recorded", async () => {
  const ws = new WebSocket(`ws://${stack.channels.echo ?? ""}/`, { headers: { "Node-Name": "channel-peer" } });
  try {
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    await waitFor("the peer counted", metrics, (text) => /^edgeloop_channel_peers\{channel="echo"\} 1$/m.test(text));
    ws.send('{"fine":true}');
    ws.send("not json");
    const text = await waitFor("both frames counted", metrics, (t) => /direction="up",result="refused"\} 1$/m.test(t) && /direction="up",result="accepted"\} 1$/m.test(t));
    assert.match(text, /^edgeloop_channel_connects_total\{channel="echo"\} 1$/m);
    const refused = (event: KubeObject): boolean => (event as { reason?: string; involvedObject?: { name?: string } }).reason === "FrameRefused" && (event as { involvedObject?: { name?: string } }).involvedObject?.name === "channel-peer";
    await waitFor("the FrameRefused Event", async () => (await stack.cluster.list({ apiVersion: "v1", kind: "Event" }, {})).items, (events) => events.some(refused));
  } finally {
    ws.terminate();
  }
});

test("an upgrade without the peer header is refused 400, naming it", async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`ws://${stack.channels.echo ?? ""}/`);
    ws.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    ws.on("open", () => reject(new Error("accepted")));
    ws.on("error", () => undefined);
  });
  assert.equal(status, 400);
});
