import { parseJson } from "../http/body.ts";
import { HttpError } from "../http/errors.ts";
import type { WorkerDeps } from "../deps.ts";
import type { Registry } from "../registry.ts";
import { ChannelConnect, ChannelConnected, ChannelFeed, ChannelFeedRequest, ChannelReceive, ChannelReceiveAnswer } from "../../protocol/index.ts";

/** The three calls of an edge channel (ADR 0028). */
export type ChannelCall = "connect" | "feed" | "receive";

/**
 * `POST /v1/channels/:name/{connect,feed,receive}`: the relay's calls for a channel's peers.
 * Each changes the channel's durable state (a connect queues the peer's state, a feed
 * acknowledges, a receive records what the peer reported), so each is replay-checked
 * before its handler runs; the answer is parsed with the protocol's schema (defaults
 * applied), so a handler's mistake is a 500 here, not a bad answer at the relay.
 */
export async function channelRoute(registry: Registry, name: string, call: ChannelCall, body: Uint8Array, deps: WorkerDeps): Promise<ChannelConnected | ChannelFeed | ChannelReceiveAnswer> {
  const registered = registry.channel(name);
  if (!registered) throw new HttpError(404, "unknown_channel", `no channel named ${name}`, "channel");
  const { channel } = registered;
  const context = { durableObject: deps.durableObject };
  switch (call) {
    case "connect": {
      const request = parseJson(body, ChannelConnect);
      await deps.beforeStateChange();
      return ChannelConnected.parse(await channel.connect(request, context));
    }
    case "feed": {
      const request = parseJson(body, ChannelFeedRequest);
      await deps.beforeStateChange();
      return ChannelFeed.parse(await channel.feed(request, context));
    }
    case "receive": {
      const request = parseJson(body, ChannelReceive);
      if (new TextEncoder().encode(request.data).length > registered.spec.maxFrameBytes) {
        throw new HttpError(400, "too_large", `data is over the channel's ${registered.spec.maxFrameBytes} bytes`, "data");
      }
      await deps.beforeStateChange();
      return ChannelReceiveAnswer.parse(await channel.receive(request, context));
    }
  }
}
