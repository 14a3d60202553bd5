import assert from "node:assert/strict";
import { test } from "node:test";
import { MONTH_SECONDS, monthlyBill, priced } from "./bill.ts";
import { PLAN_USD, PRICES } from "./prices.ts";

const idle = { workerRequests: 0, workerCpuMs: 0, durableRequests: 0, durableActiveSeconds: 0, rowsRead: 0, rowsWritten: 0 };

test("nothing beyond what the plan includes costs the plan alone", () => {
  assert.equal(monthlyBill(idle, 0).totalUsd, PLAN_USD);
  // 10 million requests a month is about 3.86/s: just inside.
  assert.equal(monthlyBill({ ...idle, workerRequests: 3.8 }, 0).totalUsd, PLAN_USD);
});

test("each unit is priced beyond its allowance, per its unit", () => {
  assert.equal(priced(PRICES.workerRequests, 11_000_000), 0.3);
  assert.equal(priced(PRICES.workerRequests, 9_000_000), 0);
  assert.equal(priced(PRICES.rowsWritten, 52_000_000), 2);
  assert.equal(priced(PRICES.storedGbMonths, 15), 2);
});

test("an object awake all month is billed 128 MB for every second of it", () => {
  const bill = monthlyBill({ ...idle, durableActiveSeconds: 1 }, 0);
  const line = bill.lines.find((l) => l.unit === "durableGbSeconds");
  assert.equal(line?.quantity, MONTH_SECONDS * 0.128);
  // 331,776 GB-s: inside the 400,000 included; two such objects are not.
  assert.equal(line?.usd, 0);
  const two = monthlyBill({ ...idle, durableActiveSeconds: 2 }, 0).lines.find((l) => l.unit === "durableGbSeconds");
  assert.ok(Math.abs((two?.usd ?? 0) - ((2 * MONTH_SECONDS * 0.128 - 400_000) / 1e6) * 12.5) < 1e-9);
});
