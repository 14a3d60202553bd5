/**
 * Cloudflare's prices for the Workers Paid plan (Standard usage model), as
 * `docs/cloudflare-pricing.md` records them with their source and date: what is included
 * each month, and the price beyond it.
 */

/** The day `docs/cloudflare-pricing.md` was read. */
export const PRICES_AS_OF = "2026-12-08";

/** One billed unit: how much a month includes, and the price per `per` units beyond it. */
export interface Price {
  readonly included: number;
  readonly usd: number;
  readonly per: number;
}

/** USD per month. */
export const PLAN_USD = 5;

export const PRICES = {
  workerRequests: { included: 10_000_000, usd: 0.3, per: 1_000_000 },
  workerCpuMs: { included: 30_000_000, usd: 0.02, per: 1_000_000 },
  durableRequests: { included: 1_000_000, usd: 0.15, per: 1_000_000 },
  durableGbSeconds: { included: 400_000, usd: 12.5, per: 1_000_000 },
  rowsRead: { included: 25_000_000_000, usd: 0.001, per: 1_000_000 },
  rowsWritten: { included: 50_000_000, usd: 1, per: 1_000_000 },
  storedGbMonths: { included: 5, usd: 0.2, per: 1 },
} as const satisfies Record<string, Price>;

/** The memory a Durable Object's duration is billed at, whatever it uses (GB). */
export const DURABLE_BILLED_GB = 0.128;
