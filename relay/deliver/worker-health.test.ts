import assert from "node:assert/strict";
import { test } from "node:test";
import { WorkerHealth } from "./worker-health.ts";

/** A health tracker writing its log lines, over a queue that counts its releases. */
function health(): { health: WorkerHealth; lines: string[]; released: () => number } {
  const lines: string[] = [];
  let released = 0;
  const tracked = new WorkerHealth((level, msg) => void lines.push(`${level} ${msg}`));
  tracked.retryWhenBack({ retryFailedNow: () => ((released += 1), 3) });
  return { health: tracked, lines, released: () => released };
}

test("the keys that failed while the Worker was away run at once when it answers again, once per return", () => {
  const { health: tracked, lines, released } = health();
  tracked.reached(true);
  assert.equal(released(), 1, "the first answer is a return from not known");
  tracked.reached(true);
  assert.equal(released(), 1, "still there: nothing to release");
  tracked.reached(false);
  assert.equal(tracked.ok, false);
  tracked.reached(true);
  assert.equal(released(), 2);
  assert.deepEqual(lines, ["info worker back: retrying keys now", "info worker back: retrying keys now"]);
});

test("a standby releases nothing; a probe says when the answer changed; a stopped tracker hears nothing", async () => {
  const lines: string[] = [];
  const standby = new WorkerHealth((level, msg) => void lines.push(`${level} ${msg}`));
  await standby.probe({ healthy: async () => true });
  await standby.probe({ healthy: async () => true });
  await standby.probe({ healthy: async () => false });
  assert.deepEqual(lines, ["info worker reachable again", "warn worker unreachable"]);
  standby.stop();
  standby.reached(true);
  assert.equal(standby.ok, false);
});
