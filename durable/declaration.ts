/**
 * How a Durable Object is declared, by the floor (`table.ts`) or by the controller family
 * that owns it (its `bindings.ts`, ADR 0022): the Worker's binding, the exported class and
 * the migration that created its SQLite storage, typed by what its objects answer over
 * RPC. Plain data, no runtime imports: the Worker reaches objects through a declaration,
 * and the scripts derive wrangler's deploy configuration and miniflare's options from them.
 */
export interface DurableObjectDeclaration<Contract = unknown> {
  /** The Worker's binding, upper case (`LEDGER`): unique among every declaration. */
  readonly binding: string;
  /** The class the Worker exports (`RecreationLedger`): unique among every declaration. */
  readonly className: string;
  /**
   * The migration tag that created its SQLite storage: `YYYY-MM-DD-name`, dated the day it
   * is written, so that the history sorts in the order it was written (ADR 0022; the
   * numbered tags `v1`–`v3` came before that rule and sort first).
   */
  readonly migration: string;
  /** Never set: carries the RPC contract's type to whoever reaches the objects through this declaration. */
  readonly contract?: Contract;
}
