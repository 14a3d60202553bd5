import assert from "node:assert/strict";
import { test } from "node:test";
import { StatusError, type Readiness } from "../../protocol/index.ts";
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
  assert.deepEqual(lines, ["info worker back: retrying keys now", "warn worker unreachable", "info worker reachable again", "info worker back: retrying keys now"], "one line when it goes, one when it returns; the first answer at start is no news");
});

test("a standby releases nothing; a probe says when the answer changed; a stopped tracker hears nothing", async () => {
  const lines: string[] = [];
  const standby = new WorkerHealth((level, msg) => void lines.push(`${level} ${msg}`));
  const ready = async (): Promise<Readiness> => ({ ok: true, durableObjects: {} });
  await standby.probe({ readiness: ready });
  await standby.probe({ readiness: ready });
  await standby.probe({ readiness: () => Promise.reject(new StatusError(0, "Unreachable", "worker unreachable")) });
  assert.deepEqual(lines, ["warn worker unreachable"], "the first answer at start is no news");
  standby.stop();
  standby.reached(true);
  assert.equal(standby.ok, false);
});

test("readiness is the signed readiness call's answer: a Worker whose /healthz answers but whose signed calls or Durable Objects fail is not ready (issue 28, finding 7c)", async () => {
  const tracked = new WorkerHealth(() => undefined);
  const answers: (() => Promise<Readiness>)[] = [
    async () => ({ ok: true, durableObjects: { LEDGER: { incarnation: "l1" }, FAMILY_QUEUE: { incarnation: "f1" } } }),
    async () => Promise.reject(new StatusError(503, "not_ready", "Durable Object FAMILY_QUEUE: storage reset")),
    async () => Promise.reject(new StatusError(401, "bad_signature", "signature mismatch")),
    async () => Promise.reject(new StatusError(0, "Unreachable", "worker unreachable")),
    async () => ({ ok: true, durableObjects: { LEDGER: { incarnation: "l1" }, FAMILY_QUEUE: { incarnation: "f1" } } }),
  ];
  const seen: boolean[] = [];
  for (const answer of answers) {
    await tracked.probe({ readiness: answer });
    seen.push(tracked.ready);
  }
  assert.deepEqual(seen, [true, false, false, false, true]);
  tracked.reached(true);
  await tracked.probe({ readiness: async () => Promise.reject(new StatusError(503, "not_ready", "FAMILY_QUEUE")) });
  tracked.reached(true);
  assert.equal(tracked.ready, false, "a reconcile that reached the Worker does not make a failed readiness call ready");
  assert.equal(tracked.ok, true, "the Worker answers: keys are not held back");
});

test("a Durable Object namespace whose storage's incarnation changes is storage lost: told once, by binding; the first answer and the same ids tell nothing", async () => {
  const lost: string[][] = [];
  const tracked = new WorkerHealth(() => undefined, (bindings) => void lost.push([...bindings]));
  const answer = (ledger: string, queue: string) => async (): Promise<Readiness> => ({ ok: true, durableObjects: { LEDGER: { incarnation: ledger }, FAMILY_QUEUE: { incarnation: queue } } });
  await tracked.probe({ readiness: answer("l1", "q1") });
  await tracked.probe({ readiness: answer("l1", "q1") });
  await tracked.probe({ readiness: () => Promise.reject(new StatusError(0, "Unreachable", "worker unreachable")) });
  await tracked.probe({ readiness: answer("l1", "q2") });
  await tracked.probe({ readiness: answer("l1", "q2") });
  await tracked.probe({ readiness: answer("l2", "q3") });
  assert.deepEqual(lost, [["FAMILY_QUEUE"], ["LEDGER", "FAMILY_QUEUE"]]);
});
