import assert from "node:assert/strict";
import { test } from "node:test";
import { WebSocket } from "ws";
import { ChannelSpec, type ControllerManifest, type Manifest } from "../../protocol/index.ts";
import { Metrics } from "../ops/metrics.ts";
import { EdgeChannels } from "./channels.ts";

const spec = ChannelSpec.parse({ name: "edge", endpoint: "edgeEndpoint", port: 9000, peerHeader: "Node-Name" });
const other = ChannelSpec.parse({ name: "quiet", endpoint: "quietEndpoint", port: 9001, peerHeader: "Node-Name" });
const controller = (channels: ChannelSpec[]): ControllerManifest => ({ name: "c", delivery: "events", watches: [], webhooks: [], apis: [], channels, permissions: [], related: [] }) as unknown as ControllerManifest;
const manifest = (channels: ChannelSpec[]): Manifest => ({ version: "v1", controllers: [controller(channels)] });

function channels(listen: Record<string, { port?: number; host?: string }>): { channels: EdgeChannels; logs: { level: string; msg: string; fields: Record<string, unknown> | undefined }[]; metrics: Metrics } {
  const logs: { level: string; msg: string; fields: Record<string, unknown> | undefined }[] = [];
  const metrics = new Metrics();
  const never = (): Promise<never> => new Promise(() => undefined);
  const edge = new EdgeChannels({
    listen,
    worker: { channelConnect: never, channelFeed: never, channelReceive: never },
    plans: { apply: () => Promise.resolve({ ok: true, failed: 0 }), applyAction: () => Promise.resolve() },
    metrics,
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
    leading: () => true,
    waitSeconds: 20,
  });
  return { channels: edge, logs, metrics };
}

test("a declared channel with a port is served on it (host loopback by default); one without a port is off; a flag no controller declares is an error, said once", async () => {
  const { channels: edge, logs, metrics } = channels({ edge: { port: 0 }, typo: { port: 1234 } });
  try {
    await edge.use(manifest([spec, other]));
    await edge.use(manifest([spec, other]));
    assert.deepEqual(Object.keys(edge.addresses), ["edge"]);
    assert.match(edge.addresses.edge ?? "", /^127\.0\.0\.1:\d+$/);
    const errors = logs.filter((l) => l.level === "error");
    assert.equal(errors.length, 1);
    assert.deepEqual(errors[0]?.fields, { flags: "--typo-port, --typo-host", declared: ["edge", "quiet"] });
    const ws = new WebSocket(`ws://${edge.addresses.edge ?? ""}/`, { headers: { "Node-Name": "node-a" } });
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    assert.match(await metrics.render(), /edgeloop_channel_peers\{channel="edge"\} 1/);
    ws.terminate();
    // A refresh that no longer declares it closes it.
    await edge.use(manifest([]));
    assert.deepEqual(edge.addresses, {});
  } finally {
    await edge.stop();
  }
});

test("a port that cannot be bound rejects, naming the channel", async () => {
  const first = channels({ edge: { port: 0 } });
  try {
    await first.channels.use(manifest([spec]));
    const port = Number((first.channels.addresses.edge ?? "").split(":")[1]);
    const second = channels({ edge: { port } });
    await assert.rejects(second.channels.use(manifest([spec])), /channel edge: cannot listen on 127\.0\.0\.1:\d+/);
    assert.deepEqual(second.channels.addresses, {});
  } finally {
    await first.channels.stop();
  }
});
