/**
 * What a controller family adds to the Worker's bindings, declared in its own folder: a
 * family's `bindings.ts` (at its top, or beside a `controller.ts`) exports
 * {@link FamilyBindings} as default, and its `durable.ts` exports the classes. The deploy
 * configuration, miniflare's options and the Worker's exports are derived from these;
 * controllers reach the objects through the declarations (`context.durableObject`).
 * Adding a family's Durable Object touches only its folder (ADR 0022).
 */
import type { DurableObjectDeclaration } from "../../durable/declaration.ts";

/** The default export of a family's `bindings.ts`. */
export interface FamilyBindings {
  /** Its Durable Objects, each class exported by the family's `durable.ts`. */
  readonly durableObjects: readonly DurableObjectDeclaration[];
  /**
   * Worker variables the family reads, with the values deployed when `wrangler.jsonc`'s
   * `vars` do not set them (the values its own parsing falls back to).
   */
  readonly vars?: Readonly<Record<string, string>>;
}

/**
 * Declares a family's Durable Object whose objects answer `Contract`. Its `migration` tag
 * is `YYYY-MM-DD-name`, the day it is written (ADR 0022).
 */
export function declareDurableObject<Contract>(declaration: Omit<DurableObjectDeclaration, "contract">): DurableObjectDeclaration<Contract> {
  return declaration;
}
