import assert from "node:assert/strict";
import { test } from "node:test";
import { ByteBudget } from "./byte-budget.ts";

test("bodies beyond the budget wait, in order, until bytes come back", async () => {
  const budget = new ByteBudget(10);
  const first = await budget.acquire(6);
  const order: string[] = [];
  const second = budget.acquire(6).then((release) => (order.push("second"), release));
  const third = budget.acquire(1).then((release) => (order.push("third"), release));
  // Held or queued as `acquire` is called: the small one fits, but waits behind the one
  // before it (it holds no bytes), so no body is passed over for ever.
  assert.equal(budget.inFlight, 6);
  first();
  first();
  const [releaseSecond, releaseThird] = await Promise.all([second, third]);
  assert.deepEqual(order, ["second", "third"]);
  assert.equal(budget.inFlight, 7);
  releaseSecond();
  releaseThird();
  assert.equal(budget.inFlight, 0);
});

test("a body larger than the whole budget goes alone rather than never", async () => {
  const budget = new ByteBudget(10);
  const big = await budget.acquire(50);
  let small = false;
  const next = budget.acquire(1).then((release) => ((small = true), release));
  assert.equal(budget.inFlight, 50, "the small one waits: it holds nothing yet");
  big();
  (await next)();
  assert.equal(small, true);
  assert.equal(budget.inFlight, 0);
});
