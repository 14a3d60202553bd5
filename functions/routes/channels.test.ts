import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventsController } from "../kit/controller.ts";
import type { WorkerDeps } from "../deps.ts";
import { HttpError } from "../http/errors.ts";
import { createRegistry } from "../registry.ts";
import { channelRoute } from "./channels.ts";

const calls: string[] = [];
const controller: EventsController = {
  name: "edge",
  delivery: "events",
  watches: [],
  permissions: [],
  handle: () => Promise.resolve({ actions: [] }),
  channels: [
    {
      spec: { name: "edge", endpoint: "edgeEndpoint", port: 9000, peerHeader: "Node-Name" },
      connect: (request) => (calls.push(`connect ${request.peer}`), Promise.resolve({ from: "4" })),
      // A handler's answer that breaks the protocol (a sequence as a number) is the Worker's fault.
      feed: () => (calls.push("feed"), Promise.resolve({ cursor: 5 } as never)),
      receive: (request) => (calls.push(`receive ${request.id}`), Promise.resolve({ accepted: true })),
    },
  ],
};
const registry = createRegistry([controller]);
const deps = { durableObject: () => ({}), beforeStateChange: () => (calls.push("replay check"), Promise.resolve()) } as unknown as WorkerDeps;
const bytes = (body: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(body));
const now = new Date().toISOString();

test("each call is parsed, replay-checked, then handled; the answer gets the protocol's defaults", async () => {
  calls.length = 0;
  assert.deepEqual(await channelRoute(registry, "edge", "connect", bytes({ peer: "node-a", now }), deps), { from: "4" });
  assert.deepEqual(await channelRoute(registry, "edge", "receive", bytes({ id: "r1", peer: "node-a", data: "{}", now }), deps), { accepted: true, actions: [] });
  assert.deepEqual(calls, ["replay check", "connect node-a", "replay check", "receive r1"]);
});

test("bad input is refused before the replay check and the handler; an unknown channel is a 404; a bad answer is not passed on", async () => {
  calls.length = 0;
  await assert.rejects(channelRoute(registry, "edge", "connect", bytes({ peer: "node-a" }), deps), (e: unknown) => e instanceof HttpError && e.status === 400 && e.path === "now");
  await assert.rejects(channelRoute(registry, "edge", "receive", bytes({ id: "", peer: "node-a", data: "", now }), deps), (e: unknown) => e instanceof HttpError && e.path === "id");
  await assert.rejects(channelRoute(registry, "edge", "feed", new TextEncoder().encode("{"), deps), (e: unknown) => e instanceof HttpError && e.code === "malformed_json");
  assert.deepEqual(calls, []);
  await assert.rejects(channelRoute(registry, "other", "connect", bytes({ peer: "node-a", now }), deps), (e: unknown) => e instanceof HttpError && e.status === 404 && e.path === "channel");
  await assert.rejects(channelRoute(registry, "edge", "feed", bytes({}), deps), (e: unknown) => !(e instanceof HttpError));
});
