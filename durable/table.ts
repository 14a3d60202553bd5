/**
 * The one declaration of the Worker's Durable Objects: binding, class and the migration
 * that created it. The Worker's `Env` type (`functions/bindings.ts`), the miniflare
 * options (`scripts/lib/worker.ts`) and the controllers' typed accessors are derived
 * from it; a test fails when `wrangler.jsonc` disagrees. Plain data, no runtime imports.
 */
import type { GangQueueContract, LedgerContract, OutboxContract, ReplayContract } from "./contracts.ts";

/** One Durable Object binding. */
export interface DurableObjectDeclaration {
  /** The exported class (`functions/worker.ts` re-exports every class of `durable/index.ts`). */
  readonly className: string;
  /** The migration tag that created its SQLite storage; tags are applied in order. */
  readonly migration: string;
}

/** Every binding, by name. */
export const DURABLE_OBJECTS = {
  LEDGER: { className: "RecreationLedger", migration: "v1" },
  OUTBOX: { className: "Outbox", migration: "v1" },
  REPLAY: { className: "ReplayGuard", migration: "v2" },
  // A controller family's own class (exported by the Worker from `edgeloop:durable-objects`).
  GANG: { className: "GangQueue", migration: "v3" },
} as const satisfies Record<keyof DurableObjectContracts, DurableObjectDeclaration>;

/** The RPC contract of each binding's objects. */
export interface DurableObjectContracts {
  readonly LEDGER: LedgerContract;
  readonly OUTBOX: OutboxContract;
  readonly REPLAY: ReplayContract;
  readonly GANG: GangQueueContract;
}

/** A binding's name. */
export type DurableObjectBinding = keyof typeof DURABLE_OBJECTS;

/** A wrangler migration: the SQLite-backed classes one tag creates. */
export interface Migration {
  readonly tag: string;
  readonly new_sqlite_classes: readonly string[];
}

/** The migrations, derived from the table, in tag order (what wrangler.jsonc must say). */
export function migrations(): Migration[] {
  const byTag = new Map<string, string[]>();
  for (const declaration of Object.values(DURABLE_OBJECTS) as DurableObjectDeclaration[]) {
    byTag.set(declaration.migration, [...(byTag.get(declaration.migration) ?? []), declaration.className]);
  }
  return [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))
    .map(([tag, classes]) => ({ tag, new_sqlite_classes: classes }));
}
