/**
 * Cloudflare's limits that a request and a Durable Object of edgeloop run into, on the
 * Workers Paid plan (Standard usage model), as Cloudflare's documentation states them on
 * the day below (https://developers.cloudflare.com/workers/platform/limits/ and
 * https://developers.cloudflare.com/durable-objects/platform/limits/). `npm run bench --
 * limits` reports each measurement beside its limit, its target half of it (issue 35:
 * anything above half a limit is redesigned).
 */

/** The day the figures were read from the pages above. */
export const LIMITS_AS_OF = "2026-12-08";

/** The limits, each with its unit. */
export const CLOUDFLARE_LIMITS = {
  /** CPU time of one request: 30 s by default, `limits.cpu_ms` raises it to 5 minutes. */
  cpuMsPerRequest: 30_000,
  /** Memory of one isolate. */
  isolateMb: 128,
  /**
   * Subrequests of one request (fetches and Durable Object calls): 1,000 on the Paid
   * plan's pages until 2025, 10,000 since; the bench holds the Worker to the stricter.
   */
  subrequestsPerRequest: 1_000,
  /** A request body, on the Free and Pro plans (the account's plan, not the Workers plan). */
  requestBodyBytes: 100 * 1_000_000,
  /** Requests one Durable Object serves per second (a soft limit: one thread). */
  durableRequestsPerSecond: 1_000,
  /** Storage of one SQLite-backed Durable Object. */
  durableStoredBytes: 10 * 1_000_000_000,
  /** One string, BLOB or row of a Durable Object's SQLite. */
  rowBytes: 2 * 1_000_000,
} as const;

/** The bench's target: half of `limit`, as the issue asks (`<= N`). */
export function halfOf(limit: number): string {
  return `<= ${limit / 2}`;
}
