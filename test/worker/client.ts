/** Test support: signed requests to a running Worker, and waiting for a condition. */
import { signRequest } from "../../protocol/index.ts";

export const SECRET = "test-secret-0123456789";

/** Sends `body` (JSON-encoded unless a string) signed with `secret` at `at` seconds. */
export async function signed(
  url: string,
  init: { method?: string; body?: unknown; secret?: string; at?: number; headers?: Record<string, string> } = {},
): Promise<Response> {
  const body = init.body === undefined ? "" : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
  const headers = await signRequest(init.secret ?? SECRET, body, init.at ?? Date.now() / 1000);
  return fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", ...headers, ...init.headers },
    ...(init.body === undefined ? {} : { body }),
  });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
