/** Test support: signed requests to a running Worker, and waiting for a condition. */
import { signRequest } from "../../protocol/index.ts";

export const SECRET = "test-secret-0123456789";

/** The path and query of `url`: what a signature covers besides method and body. */
export function targetOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** The second each request (method, target, body) was last signed at, when the test did not choose one. */
const lastSigned = new Map<string, number>();

/**
 * The second to sign at: now, or the second after the last signing of the same request,
 * as the relay does (the Worker refuses a repeated signature on a request that changes its
 * state, and the outbox tests read one cursor twice in a row).
 */
function freshSecond(key: string): number {
  const at = Math.max(Math.floor(Date.now() / 1000), (lastSigned.get(key) ?? 0) + 1);
  lastSigned.set(key, at);
  return at;
}

/**
 * Sends `body` (JSON-encoded unless a string) signed with `secret` at `at` seconds (by
 * default a second no earlier signing of the same request used), over its method and
 * `url`'s path and query.
 */
export async function signed(
  url: string,
  init: { method?: string; body?: unknown; secret?: string; at?: number; headers?: Record<string, string> } = {},
): Promise<Response> {
  const body = init.body === undefined ? "" : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
  const method = init.method ?? (init.body === undefined ? "GET" : "POST");
  const target = targetOf(url);
  const at = init.at ?? freshSecond(`${method} ${target} ${body}`);
  const headers = await signRequest(init.secret ?? SECRET, { method, target, body }, at);
  return fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers, ...init.headers },
    ...(init.body === undefined ? {} : { body }),
  });
}
