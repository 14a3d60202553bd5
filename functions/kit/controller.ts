import type {
  Action,
  ApiAnswer,
  ApiRequest,
  ApiSpec,
  AdmissionRequest,
  AdmissionResponse,
  EventBatch,
  KubeObject,
  Plan,
  ReconcileRequest,
  TypeRef,
  Watch,
  WebhookSpec,
} from "../../protocol/index.ts";
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
}

/** A controller fed with snapshots of one parent key at a time. Its reconcile is pure. */
export interface SnapshotController {
  readonly name: string;
  readonly delivery: "snapshot";
  /** The parent kind; the watch with mapping `self`. */
  readonly parent: TypeRef;
  readonly watches: readonly Watch[];
  readonly webhooks?: readonly Webhook[];
  readonly apis?: readonly HttpApi[];
  /** Custom resources this controller serves (CRDs are generated from them). */
  readonly resources?: readonly CustomResource[];
  /** Snapshot in, decision out: no I/O, no clock but `request.now`. */
  reconcile(request: ReconcileRequest): Decision;
}

/** Durable state an `events` controller may reach, provided by the Worker shell. */
export interface EventsContext {
  /** Bindings of the Worker environment (Durable Object namespaces and vars). */
  readonly env: Readonly<Record<string, unknown>>;
}

/** A controller fed with ordered raw watch events; keeps its own view (in a Durable Object). */
export interface EventsController {
  readonly name: string;
  readonly delivery: "events";
  readonly watches: readonly Watch[];
  readonly webhooks?: readonly Webhook[];
  readonly apis?: readonly HttpApi[];
  readonly resources?: readonly CustomResource[];
  handle(batch: EventBatch, context: EventsContext): Promise<Plan>;
}

/** An admission webhook: a pure function of the request and the related cached objects. */
export interface Webhook {
  readonly spec: WebhookSpec;
  review(request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>): AdmissionResponse;
}

/**
 * An HTTP API served to the cluster through the relay's front: a pure function of the
 * forwarded request (and its related cached objects) to a reply plus the actions the
 * relay applies before it sends the reply.
 */
export interface HttpApi {
  readonly spec: ApiSpec;
  handle(request: ApiRequest): ApiAnswer;
}

/** What a controller folder's `controller.ts` exports as `default`. */
export type Controller = SnapshotController | EventsController;
