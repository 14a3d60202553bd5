/**
 * A month of edgeloop on Cloudflare, in dollars: the usage measured per second of a
 * fleet's work (`../cost.bench.ts`) made a month, each unit priced beyond what the plan
 * includes (`./prices.ts`). Pure: the bench measures, this only multiplies.
 */
import { DURABLE_BILLED_GB, PLAN_USD, PRICES, type Price } from "./prices.ts";

/** Seconds in a billing month (30 days, as Cloudflare averages storage over). */
export const MONTH_SECONDS = 30 * 24 * 3600;

/** What a fleet used per second of steady work, as measured. */
export interface UsagePerSecond {
  readonly workerRequests: number;
  readonly workerCpuMs: number;
  readonly durableRequests: number;
  /** Seconds of Durable Object activity per second: 1 per object always awake (a long poll), a fraction for the others. */
  readonly durableActiveSeconds: number;
  readonly rowsRead: number;
  readonly rowsWritten: number;
}

/** One line of the bill. */
export interface BillLine {
  readonly unit: keyof typeof PRICES;
  /** Units in the month. */
  readonly quantity: number;
  readonly usd: number;
}

/** A month's bill: the plan, then one line per unit. */
export interface Bill {
  readonly lines: readonly BillLine[];
  readonly totalUsd: number;
}

/** The price of `quantity` units beyond what the plan includes. */
export function priced(price: Price, quantity: number): number {
  return (Math.max(0, quantity - price.included) / price.per) * price.usd;
}

/** The month's bill of `usage` (per second) and `storedBytes` held all month. */
export function monthlyBill(usage: UsagePerSecond, storedBytes: number): Bill {
  const month = (perSecond: number): number => perSecond * MONTH_SECONDS;
  const quantities: Record<keyof typeof PRICES, number> = {
    workerRequests: month(usage.workerRequests),
    workerCpuMs: month(usage.workerCpuMs),
    durableRequests: month(usage.durableRequests),
    durableGbSeconds: month(usage.durableActiveSeconds) * DURABLE_BILLED_GB,
    rowsRead: month(usage.rowsRead),
    rowsWritten: month(usage.rowsWritten),
    storedGbMonths: storedBytes / 1e9,
  };
  const lines = (Object.keys(PRICES) as (keyof typeof PRICES)[]).map((unit) => ({ unit, quantity: quantities[unit], usd: priced(PRICES[unit], quantities[unit]) }));
  return { lines, totalUsd: PLAN_USD + lines.reduce((sum, line) => sum + line.usd, 0) };
}
