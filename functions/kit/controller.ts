/**
 * The contract between a controller folder and the Worker shell: what a controller
 * declares (the kinds it watches, its webhooks and APIs, its custom resources, the
 * permissions it needs) and the pure functions it provides. A controller folder's
 * `controller.ts` exports one `Controller` as `default`.
 */
import type {
  Action,
  AdmissionRequest,
  AdmissionResponse,
  ApiAnswer,
  ApiRequest,
  ApiSpec,
  ChannelConnect,
  ChannelConnected,
  ChannelFeed,
  ChannelFeedRequest,
  ChannelReceive,
  ChannelReceiveAnswer,
  ChannelSpec,
  EventBatch,
  KubeObject,
  Permission,
  Plan,
  ReconcileRequest,
  RelatedObjectsInput,
  TypeRef,
  Watch,
  WebhookSpec,
} from "../../protocol/index.ts";
import type { DurableObjectDeclaration } from "../../durable/declaration.ts";
import type { z } from "zod";
import type { CustomResource } from "./crd/resource.ts";

/**
 * A claim on the RecreationLedger: the action runs only for the first caller of
 * `key` within `ttlSeconds` (per namespace). This is how one deletion produces at
 * most one replacement while the cluster's view catches up.
 */
export interface Claim {
  readonly key: string;
  readonly ttlSeconds: number;
}

/** An action as a reconcile function decides it, optionally guarded by a ledger claim. */
export type Decided = Action & { readonly claim?: Claim };

/** What a pure reconcile function returns; the route turns it into a wire `Plan`. */
export interface Decision {
  readonly actions: readonly Decided[];
  readonly requeueAfterSeconds?: number;
  /**
   * Up to this many consecutive actions of one type applied at once by the relay (see
   * `Plan.concurrency`), for actions that do not depend on each other: a node's 500 pod
   * patches.
   */
  readonly concurrency?: number;
}

/**
 * Deployment settings a controller may need in what it builds, parsed once from the
 * Worker's environment and passed to every reconcile and API call (never read from a
 * global).
 */
export interface ControllerSettings {
  /**
   * `host:port` (no scheme) where the relay serves the controllers' HTTP APIs over plain
   * HTTP inside the cluster (its Service), e.g. for an environment variable of a pod
   * that calls a controller's API.
   */
  readonly apiAddress: string;
}

/** What every controller declares, whatever its delivery. */
interface ControllerDeclaration {
  /** Unique; names the routes (`/v1/reconcile/<name>`, `/v1/events/<name>`). */
  readonly name: string;
  /** The kinds the relay watches for it, and how each maps to a parent key. */
  readonly watches: readonly Watch[];
  /**
   * What it may read and write in the cluster. The relay's ClusterRole is built from
   * these alone; every watched kind must be readable here.
   */
  readonly permissions: readonly Permission[];
  readonly webhooks?: readonly Webhook[];
  readonly apis?: readonly HttpApi[];
  /** Edge channels the relay serves to agents on the nodes for this controller (ADR 0028). */
  readonly channels?: readonly EdgeChannel[];
  /** Custom resources this controller serves (CRDs are generated from them). */
  readonly resources?: readonly CustomResource[];
}

/** A controller fed with snapshots of one parent key at a time. Its reconcile is pure. */
export interface SnapshotController extends ControllerDeclaration {
  readonly delivery: "snapshot";
  /** The parent kind; the watch with mapping `self`. */
  readonly parent: TypeRef;
  /**
   * Cached objects added to every snapshot's `related`, narrowed to the parent (paths
   * from `object`, the parent), e.g. the nodes sharing the parent node's pool label.
   */
  readonly related?: readonly RelatedObjectsInput[];
  /** Snapshot in, decision out: no I/O, no clock but `request.now`. */
  reconcile(request: ReconcileRequest, settings: ControllerSettings): Decision;
}

/** Appends plans for the relay to apply outside the current request (a timer's work). */
export interface OutboxWriter {
  /** Queues `plan` (about parent `key`, when there is one) under this controller's name; resolves to its id. */
  append(plan: Plan, key?: string): Promise<string>;
}

/** The Durable Objects a controller reaches, provided by the Worker shell. */
export interface DurableContext {
  /**
   * The object `name` of a declared Durable Object (the floor's, `durable/table.ts`, or its
   * family's own, `bindings.ts`), typed by the contract its declaration carries.
   */
  durableObject<Contract>(declaration: DurableObjectDeclaration<Contract>, name: string): Contract;
}

/** The durable state an `events` controller reaches, provided by the Worker shell. */
export interface EventsContext extends DurableContext {
  /** The Worker's Outbox, bound to this controller. */
  readonly outbox: OutboxWriter;
}

/** A controller fed with ordered raw watch events; keeps its own view (in a Durable Object). */
export interface EventsController extends ControllerDeclaration {
  readonly delivery: "events";
  handle(batch: EventBatch, context: EventsContext): Promise<Plan>;
}

/** An admission webhook as a controller declares it (defaults may be left out). */
export type WebhookDeclaration = z.input<typeof WebhookSpec>;

/** An admission webhook: a pure function of the request, its related cached objects and the relay's clock (ms since the epoch). */
export interface Webhook {
  readonly spec: WebhookDeclaration;
  review(request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>, now: number): AdmissionResponse;
}

/** An HTTP API as a controller declares it (defaults may be left out). */
export type ApiDeclaration = z.input<typeof ApiSpec>;

/**
 * An HTTP API served to the cluster through the relay's front: a pure function of the
 * forwarded request (and its related cached objects) to a reply plus the actions the
 * relay applies before it sends the reply.
 */
export interface HttpApi {
  readonly spec: ApiDeclaration;
  /**
   * When set, a repeated state-changing request (not GET or HEAD) with the same method,
   * path, query and body within this many seconds (a client's retry after a dropped
   * connection) gets the first one's answer again: its actions too when they are all
   * idempotent (deletes, creates with `ifAbsent`), so the relay applies them (a no-op
   * where the first attempt did) before it replies; else the reply alone, applying
   * nothing. Only answers in 2xx with actions are remembered.
   */
  readonly retryWindowSeconds?: number;
  /**
   * With `retryWindowSeconds`: the state-changing requests a retry decides afresh rather
   * than answers with the first reply. Within the window a repeat is handed the first
   * attempt's `id`, and nothing of a reply is remembered: a handler that derives what it
   * creates from the id (names, a marker on each object) and skips what already exists
   * answers a retry after a lost answer or a partial apply with exactly what the first
   * asked, every object it names existing or created by the retry's own actions.
   */
  readonly retriesConverge?: (request: ApiRequest) => boolean;
  /**
   * The answer: pure over the request and its related objects, or, for an API that
   * answers from durable state (a scheduler's queue), read through `context`.
   */
  handle(request: ApiRequest, settings: ControllerSettings, context: DurableContext): ApiAnswer | Promise<ApiAnswer>;
}

/** An edge channel as a controller declares it (defaults may be left out). */
export type ChannelDeclaration = z.input<typeof ChannelSpec>;

/** A receive answer as a handler writes it (defaults may be left out). */
export type ChannelReceiveReply = z.input<typeof ChannelReceiveAnswer>;

/**
 * An edge channel (ADR 0028): agents on the nodes hold WebSockets to the relay, which
 * forwards what they send to `receive` one frame at a time per peer and sends them the
 * frames of `feed`. What each peer must hold is the controller's durable state (its own
 * Durable Object); these three calls are the whole of what the Worker shell asks of it.
 */
export interface EdgeChannel {
  readonly spec: ChannelDeclaration;
  /** A peer connected: queue its whole state in the feed; answer the sequence it starts at. */
  connect(request: ChannelConnect, context: DurableContext): Promise<ChannelConnected>;
  /** Acknowledge up to the cursor, record the completed writes, answer the frames after it (long-polling up to `waitSeconds`). */
  feed(request: ChannelFeedRequest, context: DurableContext): Promise<ChannelFeed>;
  /** One frame a peer sent: validate it against what was sent to that peer; answer the actions that carry it into the cluster. */
  receive(request: ChannelReceive, context: DurableContext): Promise<ChannelReceiveReply>;
}

/** What a controller folder's `controller.ts` exports as `default`. */
export type Controller = SnapshotController | EventsController;
