import assert from "node:assert/strict";
import { test } from "node:test";
import type { Plan } from "../../protocol/index.ts";
import type { ApplyResult } from "./applier.ts";
import type { PlanSink } from "./guard.ts";
import { ApplySlots } from "./slots.ts";

/** A sink whose applies finish when the test says, counting how many run at once. */
function heldSink(): { sink: PlanSink; running: () => number; most: () => number; finishOne: () => void } {
  let running = 0;
  let most = 0;
  const finishers: (() => void)[] = [];
  const sink: PlanSink = {
    apply: () =>
      new Promise<ApplyResult>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        finishers.push(() => {
          running -= 1;
          resolve({ ok: true, failed: 0 });
        });
      }),
    applyAction: () => Promise.resolve(),
  };
  return { sink, running: () => running, most: () => most, finishOne: () => finishers.shift()?.() };
}

const plan = (actions: number): Plan => ({ actions: Array.from({ length: actions }, () => ({ type: "event", target: { apiVersion: "v1", kind: "Pod", name: "p" }, eventType: "Normal", reason: "R", message: "m" })) }) as unknown as Plan;

test("at most N plans apply at once; the next waits for a slot and takes it in order; empty plans take none", async () => {
  const { sink, running, most, finishOne } = heldSink();
  const slots = new ApplySlots(sink, 2);
  const applied = Array.from({ length: 5 }, () => slots.apply(plan(1), { controller: { name: "c" } } as never));
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(running(), 2);
  assert.equal(slots.waiting, 3);
  const empty = slots.apply(plan(0), { controller: { name: "c" } } as never);
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(running(), 3, "an empty plan goes straight through");
  for (let i = 0; i < 6; i += 1) {
    finishOne();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await Promise.all([...applied, empty]);
  assert.equal(most(), 3);
  assert.equal(slots.waiting, 0);
});
