/**
 * The floor's Durable Objects, declared once: the Worker's `durableObject` accessor, the
 * proof that each class answers its contract (`functions/bindings.ts`) and miniflare's
 * options are derived from them, and `wrangler.jsonc` binds exactly these (a test fails
 * when it disagrees). A controller family declares its own in its folder (ADR 0022).
 * Plain data, no runtime imports.
 */
import type { LedgerContract, OutboxContract, ReplayContract } from "./contracts.ts";
import type { DurableObjectDeclaration } from "./declaration.ts";

/** The recreated-pods ledger (one object per namespace, `ledgerObjectName`). */
export const LEDGER: DurableObjectDeclaration<LedgerContract> = { binding: "LEDGER", className: "RecreationLedger", migration: "v1" };

/** The Outbox of plans made outside a request (one object, `OUTBOX_OBJECT_NAME`). */
export const OUTBOX: DurableObjectDeclaration<OutboxContract> = { binding: "OUTBOX", className: "Outbox", migration: "v1" };

/** The signatures already received (16 shards, `replayShardName`). */
export const REPLAY: DurableObjectDeclaration<ReplayContract> = { binding: "REPLAY", className: "ReplayGuard", migration: "v2" };

/** Every Durable Object of the floor, the classes `durable/index.ts` exports. */
export const FLOOR_DURABLE_OBJECTS: readonly DurableObjectDeclaration[] = [LEDGER, OUTBOX, REPLAY];
