/**
 * What the Sedna edge channel adds to the Worker's bindings (ADR 0022): its Durable Object
 * (the class in `durable.ts`), with the contract the controller's events and channel
 * calls reach it by. The deploy configuration and miniflare's options are derived from
 * this; nothing outside the folder names it.
 */
import type { ChannelConnect, ChannelConnected, ChannelFeed, ChannelFeedRequest, ChannelReceive, EventBatch, Plan } from "../../../../protocol/index.ts";
import { declareDurableObject, type FamilyBindings } from "../../../kit/bindings.ts";
import type { Reply } from "./core/status.ts";

/**
 * The name of the one `SednaEdge` object: the whole cluster's LocalControllers share one
 * feed (the relay reads one). One object serves a thousand nodes' state (figures in ADR
 * 0028); sharding by node would need one feed per shard.
 */
export const SEDNA_EDGE_OBJECT_NAME = "cluster";

/** What the object answers over RPC. */
export interface SednaEdgeContract {
  /** Takes a batch of watch events of the carried kinds and worker pods; queues the frames they make; answers an empty plan. */
  apply(batch: EventBatch): Promise<Plan>;
  /** A node's LC connected: its whole state is queued; answers the sequence it starts at. (Not `connect`: a Durable Object's `connect` is its TCP socket handler.) */
  connectPeer(request: ChannelConnect): Promise<ChannelConnected>;
  /** Acknowledges up to the cursor, records the completed writes, answers the frames after it (waiting up to `waitSeconds` for one). */
  feed(request: ChannelFeedRequest): Promise<ChannelFeed>;
  /** A frame a node's LC sent: whether it is accepted, why not, and the actions that carry it into the cluster. */
  receive(request: ChannelReceive): Promise<Reply>;
}

/** The edge channel's Durable Object: one dated migration of its own (ADR 0022). */
export const SEDNA_EDGE = declareDurableObject<SednaEdgeContract>({ binding: "SEDNA_EDGE", className: "SednaEdge", migration: "2026-11-27-sedna-edge" });

const bindings: FamilyBindings = { durableObjects: [SEDNA_EDGE] };

export default bindings;
