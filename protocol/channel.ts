import { z } from "zod";
import { isDns1123Subdomain } from "./kube/names.ts";
import { Action } from "./plan.ts";
import { Timestamp } from "./reconcile.ts";

/** A decimal sequence number of a channel's feed (a string: SQLite ids outgrow a double's exact range only in theory, and cursors stay text on the wire). */
const Seq = z.string().regex(/^\d{1,19}$/, "expected a decimal sequence number");

/** A peer's name as its identity header carries it: a node name (a DNS-1123 subdomain, at most 253 characters). */
export const PeerName = z.string().refine((name) => isDns1123Subdomain(name).length === 0, "expected a node name (a DNS-1123 subdomain)");

/**
 * An edge channel a controller serves to agents on the cluster's nodes (ADR 0028): the
 * relay accepts their WebSockets on a port of its own, one socket per peer (a node), and
 * carries text frames both ways. The relay reads no frame: downstream frames come from the
 * Worker's feed, upstream frames go to the Worker one at a time per peer, and only the
 * actions of the Worker's answer touch the cluster.
 */
export const ChannelSpec = z.object({
  /** Unique; names the Worker's routes (`/v1/channels/{name}/…`), the relay's flags (`--{name}-port`, `--{name}-host`) and its Service port. */
  name: z.string().regex(/^[a-z]([a-z0-9-]{0,13}[a-z0-9])?$/, "expected a lower-case name of at most 15 characters (a Service port name)"),
  /** The key of `.edgeloop/endpoints.json` that holds `host:port`, what a peer on this machine would dial. */
  endpoint: z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,31}$/),
  /** The port the relay serves the channel on in a cluster install (and its Service exposes). */
  port: z.number().int().min(1).max(65535),
  /** The request header that names the peer (its node); an upgrade without a valid one is refused 400. */
  peerHeader: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
  /** The largest frame a peer may send; a larger one closes that peer's socket (1009), never another's. */
  maxFrameBytes: z.number().int().min(1024).max(16 * 1024 * 1024).default(1024 * 1024),
  /**
   * The Service the peers dial by default (their own manifests name it), when it is not
   * the relay's: `install-relay` renders it, with its namespace, as an ExternalName to
   * the Service of the relay's channels (which selects the leading replica only).
   */
  service: z.object({ namespace: z.string().min(1).max(63), name: z.string().min(1).max(63) }).optional(),
});
export type ChannelSpec = z.infer<typeof ChannelSpec>;

/** `POST /v1/channels/{name}/connect`: a peer's socket opened (or replaced its previous one). */
export const ChannelConnect = z.object({
  peer: PeerName,
  /** The relay's clock, RFC 3339. */
  now: Timestamp,
});
export type ChannelConnect = z.infer<typeof ChannelConnect>;

/**
 * The answer to a connect: the Worker has queued, in its feed, the peer's whole state
 * (what it must hold, and the removals it may have missed) from sequence `from` on. The
 * relay sends this peer no frame of a lower sequence: the state supersedes them.
 */
export const ChannelConnected = z.object({ from: Seq });
export type ChannelConnected = z.infer<typeof ChannelConnected>;

/** One frame the relay sent to a peer's socket (the write completed). */
export const ChannelDelivered = z.object({ peer: PeerName, seq: Seq });
export type ChannelDelivered = z.infer<typeof ChannelDelivered>;

/**
 * `POST /v1/channels/{name}/feed`: acknowledges every frame up to `cursor` (the relay
 * handled it: written to its peer's socket, or dropped because the peer was not
 * connected), reports which peers' writes completed, and long-polls for what follows.
 */
export const ChannelFeedRequest = z.object({
  cursor: Seq.default("0"),
  waitSeconds: z.number().int().min(0).max(60).default(0),
  /** For each peer, the highest sequence written to its socket since the last request. */
  delivered: z.array(ChannelDelivered).max(10_000).default([]),
});
export type ChannelFeedRequest = z.infer<typeof ChannelFeedRequest>;

/** One downstream frame: the text `texts[text]` of its feed answer goes to `peer`'s socket as a text frame, in `seq` order. */
export const ChannelFrame = z.object({ seq: Seq, peer: PeerName, text: z.number().int().min(0) });
export type ChannelFrame = z.infer<typeof ChannelFrame>;

/**
 * The feed's answer: frames after the request's cursor, in order; `cursor` is what to
 * send next once they are handled. Each distinct text is carried once, however many peers
 * it goes to: one job change for 1,000 nodes is one copy of the job, not 1,000.
 */
export const ChannelFeed = z
  .object({ cursor: Seq, texts: z.array(z.string()), frames: z.array(ChannelFrame) })
  .refine((feed) => feed.frames.every((frame) => frame.text < feed.texts.length), { path: ["frames"], message: "a frame names a text the answer does not carry" });
export type ChannelFeed = z.infer<typeof ChannelFeed>;

/** `POST /v1/channels/{name}/receive`: one frame a peer sent, forwarded in the order the peer sent it. */
export const ChannelReceive = z.object({
  /** Unique per forwarded frame: the seed of any generated names (an Event's). */
  id: z.string().min(1).max(128),
  peer: PeerName,
  /** The frame's text (a binary frame as UTF-8); at most the channel's `maxFrameBytes`. */
  data: z.string(),
  now: Timestamp,
});
export type ChannelReceive = z.infer<typeof ChannelReceive>;

/**
 * The Worker's answer to a frame: whether it was accepted, why not (the relay logs and
 * counts a refusal by `reason`), and the actions the relay applies, in order, within the
 * controller's permissions (a status write; a Warning Event on the object a refused frame
 * named).
 */
export const ChannelReceiveAnswer = z.object({
  accepted: z.boolean(),
  /** Set when refused: a short reason code (a metric label), e.g. `malformed`, `not-sent-to-peer`. */
  reason: z.string().regex(/^[a-z0-9-]{1,40}$/).optional(),
  /** A readable explanation for the log. */
  message: z.string().max(1024).optional(),
  actions: z.array(Action).default([]),
});
export type ChannelReceiveAnswer = z.infer<typeof ChannelReceiveAnswer>;

/** A downstream frame with its text, as a peer is sent it. */
export interface ResolvedFrame {
  readonly seq: string;
  readonly peer: string;
  readonly data: string;
}

/** The frames of a feed answer with their texts, in order. */
export function feedFrames(feed: Pick<ChannelFeed, "texts" | "frames">): ResolvedFrame[] {
  return feed.frames.map((frame) => ({ seq: frame.seq, peer: frame.peer, data: feed.texts[frame.text] ?? "" }));
}

/** A feed answer of these frames, each distinct text carried once. */
export function feedOf(cursor: string, frames: readonly ResolvedFrame[]): ChannelFeed {
  const texts: string[] = [];
  const index = new Map<string, number>();
  const indexed = frames.map((frame) => {
    let text = index.get(frame.data);
    if (text === undefined) {
      text = texts.push(frame.data) - 1;
      index.set(frame.data, text);
    }
    return { seq: frame.seq, peer: frame.peer, text };
  });
  return { cursor, texts, frames: indexed };
}
