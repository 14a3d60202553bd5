/**
 * The edge channel routes in real workerd, through the fixture channel `echo`
 * (test/fixtures/controllers/echo): signed, parsed with the protocol's schemas (400 naming
 * the field, 404 for a channel no controller declares), replay-checked, answers normalised.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { signRequest } from "../../protocol/index.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { SECRET, signed } from "./client.ts";

let worker: RunningWorker;
before(async () => {
  worker = await startWorker({ secret: SECRET, extraControllerDirs: [join(import.meta.dirname, "../fixtures/controllers")] });
});
after(async () => {
  await worker.stop();
});

const url = (call: string, channel = "echo"): string => `${worker.url}/v1/channels/${channel}/${call}`;
const now = (): string => new Date().toISOString();

async function json(response: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test("the manifest lists the channel with its spec's defaults", async () => {
  const manifest = (await (await signed(`${worker.url}/v1/manifest`)).json()) as { controllers: { name: string; channels: unknown[] }[] };
  assert.deepEqual(manifest.controllers.find((c) => c.name === "echo")?.channels, [{ name: "echo", endpoint: "echoEndpoint", port: 9009, peerHeader: "Node-Name", maxFrameBytes: 4096 }]);
});

test("connect, feed and receive answer as the channel says, normalised by the protocol's schemas", async () => {
  assert.deepEqual(await json(await signed(url("connect"), { body: { peer: "node-a", now: now() } })), { status: 200, body: { from: "0" } });
  assert.deepEqual(await json(await signed(url("feed"), { body: { cursor: "7", waitSeconds: 0, delivered: [{ peer: "node-a", seq: "7" }] } })), { status: 200, body: { cursor: "7", texts: [], frames: [] } });
  assert.deepEqual(await json(await signed(url("feed"), { body: {} })), { status: 200, body: { cursor: "0", texts: [], frames: [] } }, "the request's defaults");
  assert.deepEqual(await json(await signed(url("receive"), { body: { id: "f-1", peer: "node-a", data: '{"ok":true}', now: now() } })), { status: 200, body: { accepted: true, actions: [] } });
  const refused = await json(await signed(url("receive"), { body: { id: "f-2", peer: "node-a", data: "not json", now: now() } }));
  assert.equal(refused.status, 200);
  assert.equal(refused.body.accepted, false);
  assert.equal(refused.body.reason, "malformed");
  assert.deepEqual((refused.body.actions as { reason: string; target: { name: string } }[]).map((a) => [a.reason, a.target.name]), [["FrameRefused", "node-a"]]);
});

test("bad input is a 400 naming the field; a channel no controller declares is a 404; a frame over the channel's bound is refused", async () => {
  const cases: [string, Promise<Response>, number, string][] = [
    ["bad peer", signed(url("connect"), { body: { peer: "Not_A_Node", now: now() } }), 400, "peer"],
    ["no now", signed(url("connect"), { body: { peer: "node-a" } }), 400, "now"],
    ["bad cursor", signed(url("feed"), { body: { cursor: "-1" } }), 400, "cursor"],
    ["long wait", signed(url("feed"), { body: { waitSeconds: 600 } }), 400, "waitSeconds"],
    ["no id", signed(url("receive"), { body: { peer: "node-a", data: "{}", now: now() } }), 400, "id"],
    ["too large", signed(url("receive"), { body: { id: "f-3", peer: "node-a", data: "x".repeat(5000), now: now() } }), 400, "data"],
    ["unknown channel", signed(url("connect", "nope"), { body: { peer: "node-a", now: now() } }), 404, "channel"],
    ["unknown call", signed(url("other"), { body: {} }), 404, "path"],
  ];
  for (const [name, request, status, path] of cases) {
    const answer = await json(await request);
    assert.equal(answer.status, status, `${name}: ${JSON.stringify(answer.body)}`);
    assert.equal((answer.body.error as { path: string }).path, path, name);
  }
});

test("a channel call sent again with the same signature is refused as a replay; unsigned is refused", async () => {
  const body = JSON.stringify({ cursor: "3", waitSeconds: 0 });
  const headers = await signRequest(SECRET, { method: "POST", target: "/v1/channels/echo/feed", body }, Date.now() / 1000);
  const send = (): Promise<Response> => fetch(url("feed"), { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  assert.equal((await send()).status, 200);
  const again = await json(await send());
  assert.equal(again.status, 401, JSON.stringify(again.body));
  assert.equal((await fetch(url("connect"), { method: "POST", body: "{}" })).status, 401);
});
