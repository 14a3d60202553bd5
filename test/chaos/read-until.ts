/** A wait whose timeout is an outcome, not a failure: the row reports what it read last. */
import { waitFor, WaitTimeout } from "../../cli/wait.ts";

/** Reads until `done` or `timeoutMs`; resolves with the last value read either way. */
export async function readUntil<T>(what: string, read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs: number, intervalMs = 100): Promise<T> {
  try {
    return await waitFor(what, read, done, { timeoutMs, intervalMs });
  } catch (error) {
    if (error instanceof WaitTimeout) return read();
    throw error;
  }
}
