import type { ClaimRequest, ClaimsAnswer, SignatureOnce } from "../durable/contracts.ts";
import type { OutboxBatch } from "../protocol/index.ts";
import type { ControllerSettings, DurableContext } from "./kit/controller.ts";

/** The RecreationLedger as the routes see it (one ledger object per namespace). */
export interface LedgerClient {
  /**
   * Every claim of one plan in `namespace` in one call (and one write), answered in order;
   * with `once`, the request's replay check rides on the same write (see `LedgerContract`).
   */
  claimAll(namespace: string | undefined, claims: readonly ClaimRequest[], once?: SignatureOnce): Promise<ClaimsAnswer>;
  /**
   * Holds `value` under `key` in `namespace` for `ttlSeconds` unless a value is held
   * already; answers the held one (`value` itself for the first caller).
   */
  remember(namespace: string | undefined, key: string, ttlSeconds: number, value: string): Promise<string>;
  /** Drops the claim of `key` in `namespace` (its action was not applied); true when one was held. */
  release(namespace: string | undefined, key: string): Promise<boolean>;
}

/** The ReplayGuard as the routes see it. */
export interface ReplayClient {
  /** True the first time a signature is presented; it is remembered until `expiresAt` (ms). */
  first(signature: string, expiresAt: number): Promise<boolean>;
}

/** The Outbox as the routes see it. */
export interface OutboxClient {
  read(cursor: string, waitSeconds: number): Promise<OutboxBatch>;
}

/** One Durable Object namespace the Worker is bound to, as the readiness route reads it. */
export interface DurableNamespace {
  /** The binding (`LEDGER`, or a family's own). */
  readonly binding: string;
  /** Reads one object's storage (`ProbedDurableObject.ready`): its incarnation id; rejects when the namespace cannot serve. */
  ready(): Promise<string>;
}

/** Reaches the object `name` of a declared Durable Object, typed by its contract (the floor's or a family's). */
export type DurableObjects = DurableContext["durableObject"];

/**
 * Everything the routes need from the runtime, resolved once per request from the
 * Worker environment. Keeping it an interface lets the routes run on fakes in Node.
 */
export interface WorkerDeps {
  /** The HMAC key every signed request is checked against. */
  readonly secret: string;
  /** What controllers are told of the deployment (parsed once from the environment). */
  readonly settings: ControllerSettings;
  readonly ledger: LedgerClient;
  readonly outbox: OutboxClient;
  readonly replay: ReplayClient;
  /** Every declared Durable Object (what controllers reach through their context). */
  readonly durableObject: DurableObjects;
  /** Every Durable Object namespace bound (the readiness route reads one object of each). */
  durableNamespaces(): readonly DurableNamespace[];
  /**
   * Refuses (401) a request whose signature was seen before: awaited before the request
   * changes Worker state (a ledger claim, an events controller's objects, an outbox
   * acknowledgement). The app binds it per request; a replayed pure request is only
   * answered again.
   */
  beforeStateChange(): Promise<void>;
  /** Seconds since the epoch (the signature's clock). */
  nowSeconds(): number;
}

/** Builds the dependencies from the Worker's `env` binding object. */
export type DepsResolver = (env: unknown) => WorkerDeps;
