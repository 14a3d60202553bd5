/**
 * The Sedna edge channel's Durable Object (declared in `bindings.ts`, ADR 0022 and 0028):
 * the state machine of `logic.ts` over the object's SQLite, each call one transaction, and
 * the feed's long poll: a read that finds nothing parks until a call queues a frame or its
 * wait ends.
 */
import type { ChannelConnect, ChannelConnected, ChannelFeed, ChannelFeedRequest, ChannelReceive, EventBatch, Plan } from "../../../../protocol/index.ts";
import { ProbedDurableObject, type StubAnswers } from "../../../kit/durable-object.ts";
import { ParkedReads } from "../../../kit/parked.ts";
import type { SEDNA_EDGE, SednaEdgeContract } from "./bindings.ts";
import type { Reply } from "./core/status.ts";
import { SednaEdgeLogic } from "./logic.ts";

/** The edge channel of the cluster's LocalControllers: one object. */
export class SednaEdge extends ProbedDurableObject implements SednaEdgeContract {
  readonly #logic: SednaEdgeLogic;

  /** Feed reads parked in a long poll, woken by the next frame queued. */
  readonly #parked = new ParkedReads();

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#logic = new SednaEdgeLogic(this.sql);
  }

  /** Updates the view and the holds in one transaction; the frames go by the feed, so the plan is empty. */
  apply(batch: EventBatch): Promise<Plan> {
    return this.served(() => {
      this.#woken(this.storage.transactionSync(() => this.#logic.apply(batch)));
      return { actions: [] };
    });
  }

  /** Queues the peer's whole state; answers where it starts. */
  connectPeer(request: ChannelConnect): Promise<ChannelConnected> {
    return this.served(() => {
      const { from, appended } = this.storage.transactionSync(() => this.#logic.connect(request.peer));
      this.#woken(appended);
      return { from };
    });
  }

  /** Acknowledges, then answers the frames after the cursor, waiting up to `waitSeconds` when there is none. */
  feed(request: ChannelFeedRequest): Promise<ChannelFeed> {
    return this.served(async () => {
      const page = this.storage.transactionSync(() => this.#logic.feed({ cursor: request.cursor, delivered: request.delivered }));
      if (page.frames.length > 0 || request.waitSeconds === 0) return page;
      await this.#parked.park(request.waitSeconds * 1000);
      return this.#logic.frames(page.cursor);
    });
  }

  /** Validates a frame against what was sent to its node; answers the actions. */
  receive(request: ChannelReceive): Promise<Reply> {
    return this.served(() => this.#logic.receive(request));
  }

  /** Wakes the parked reads when frames were queued. */
  #woken(appended: number): void {
    if (appended > 0) this.#parked.wakeAll();
  }
}

/** The compiler's proof that the object's stubs answer the contract the controller calls them by. */
const STUB_ANSWERS: StubAnswers<SednaEdge, typeof SEDNA_EDGE> = true;
void STUB_ANSWERS;
