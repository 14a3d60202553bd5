/**
 * What the in-process Worker's env binds, written beside its bundle when it is built (in
 * the repository, where the families' declarations are) and read when it is started (in a
 * relay bundled elsewhere, which cannot find them on disk).
 */
import { dirname, join } from "node:path";

/** The Durable Objects and variables the bundled Worker's env binds, written beside it. */
export interface BundledBindings {
  readonly durableObjects: readonly { readonly binding: string; readonly className: string }[];
  readonly vars: Readonly<Record<string, string>>;
}

/** Where {@link BundledBindings} of the Worker bundled at `modulePath` are kept. */
export function bindingsFileOf(modulePath: string): string {
  return join(dirname(modulePath), "bindings.json");
}
