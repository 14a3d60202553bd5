/**
 * The one place the relay writes a private field of client-node (2.0). Its `Watch` ends a
 * watch after `requestTimeoutMs` without a byte (30 s by default, not an option of the
 * constructor nor of `watch()`, and `private` in its typings though a plain field at run
 * time): the relay's silence bound replaces it (`./relisting-watch.ts`). Its TimeoutError
 * makes ListWatch reconnect from its resourceVersion at once: the restart wanted. The
 * silent-watch test of `store/cache.test.ts` runs client-node's own watch: an upgrade
 * that renames the field fails that test, not production.
 */
import type { Watch } from "@kubernetes/client-node";

/** Sets how long `watch` waits for a byte before it ends the request. */
export function setInactivityTimeout(watch: Watch, ms: number): void {
  (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = ms;
}
