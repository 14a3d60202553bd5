/**
 * What each of the floor's Durable Objects answers over RPC, as plain interfaces: the
 * Worker's routes and the controllers call objects through these, and each class
 * implements its own (the compiler checks both sides). No runtime imports, so Node-side
 * code may read them too. A family's object has its contract in the family's folder.
 */
import type { OutboxBatch, Plan } from "../protocol/index.ts";

/** One claim of a batch: `key` held for `ttlSeconds` when granted. */
export interface ClaimRequest {
  readonly key: string;
  readonly ttlSeconds: number;
}

/** A signed request's signature, to be accepted once: held until `expiresAt` (ms). */
export interface SignatureOnce {
  readonly signature: string;
  readonly expiresAt: number;
}

/** What a batch of claims got: refused whole as a replay, or one answer per claim, in order. */
export type ClaimsAnswer = { readonly replayed: true } | { readonly replayed: false; readonly granted: readonly boolean[] };

/** The recreated-pods ledger (one object per namespace). */
export interface LedgerContract {
  /**
   * Every claim of one plan at once, answered in order: a claim is granted (true) when its
   * key is free or its claim expired, and the key is then held for its `ttlSeconds`; a
   * key held (or twice in the batch: the second) is refused. With `once`, the request's
   * signature is checked and recorded in the same write: a signature seen before refuses
   * the whole batch (`replayed`) and grants nothing.
   */
  claimAll(claims: readonly ClaimRequest[], once?: SignatureOnce): Promise<ClaimsAnswer>;
  /** Drops the claim of `key` (its action was not applied); true when one was held. */
  release(key: string): Promise<boolean>;
  /**
   * Holds `value` under `key` for `ttlSeconds` unless one is held; answers the held value
   * (`value` itself for the first caller). `release(key)` drops it too.
   */
  remember(key: string, ttlSeconds: number, value: string): Promise<string>;
  /** Claims and remembered values held (expired ones not swept yet included). */
  size(): Promise<number>;
}

/** Plans made outside a request, waiting for the relay (one object per Worker). */
export interface OutboxContract {
  /** Appends one plan for `controller`; returns its id. */
  append(controller: string, plan: Plan, key?: string): Promise<string>;
  /** Acknowledges up to `cursor`, then answers what follows, long-polling up to `waitSeconds`. */
  read(cursor: string, waitSeconds: number): Promise<OutboxBatch>;
  /** Entries not yet acknowledged. */
  pending(): Promise<number>;
}

/** Signatures already received (16 shards). */
export interface ReplayContract {
  /** True the first time `signature` arrives (held until `expiresAt`, ms); false for a repeat. */
  first(signature: string, expiresAt: number): Promise<boolean>;
  /** Signatures held. */
  size(): Promise<number>;
}

/** An object's figures since it started. */
export interface DurableUsage {
  /** RPC calls and alarms served (the `usage` call that reads them excluded). */
  readonly requests: number;
  /** Rows SQLite read for this object's statements (`SqlStorageCursor.rowsRead`, as billed). */
  readonly rowsRead: number;
  /** Rows SQLite wrote (`rowsWritten`, indexes included, as billed). */
  readonly rowsWritten: number;
  /** The object's SQLite database now (`databaseSize`): what it stores. */
  readonly storedBytes: number;
  /**
   * Wall time with at least one request in flight (ms): what Cloudflare bills as duration,
   * long polls included. workerd's clock moves only across I/O, so a request's synchronous
   * work adds nothing here: that time is CPU, measured by whoever runs workerd.
   */
  readonly activeMs: number;
}

/** What every Durable Object of edgeloop answers besides its own contract (`ProbedDurableObject`). */
export interface UsageContract {
  usage(): Promise<DurableUsage>;
}
