/**
 * Chaos rows that restart a part of the stack losing state, or step its clock: the API
 * server restarting on a store that lost its last acknowledged writes, the Worker's
 * Durable Object storage wiped, the relay's wall clock stepped back and forward.
 */
import { readdirSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { readUntil } from "./read-until.ts";
import { killRelay } from "./relays.ts";
import type { Fault } from "./faults.ts";

/** How long the API server is down while it restarts (every request answered 503). */
const API_DOWN_MS = 1_500;
/** How long the gang is bound before the store loses it. */
const BOUND_FOR_MS = 2_000;
/** Members of the gang whose binds the restart loses. */
const LOST_GANG_SIZE = 6;
/** The relay's clock step, both ways: within the signature window, longer than any row's deadline. */
const CLOCK_STEP_MS = 120_000;

/**
 * The API server restarts and its store has lost what it acknowledged since a gang was
 * created: the gang's binds (and whatever the controllers wrote meanwhile) are gone,
 * every watch ends with 410, and the API answers 503 for {@link API_DOWN_MS}.
 */
export function apiServerRestartLostWrites(): Fault {
  let rows = 0;
  return {
    name: "API server restart, lost writes",
    expected: "lost binds and creates redone",
    deadlineMs: 45_000,
    async prepare(ctx) {
      ctx.stack.sim.faults.recordWrites(60_000);
    },
    async inject(ctx) {
      const started = performance.now();
      const faults = ctx.stack.sim.faults;
      // After the burst's own deletes, so that what is lost is what the system wrote.
      await sleep(1_500);
      const group = `gang-lw-${++rows}`;
      await ctx.workload.addGang(group, LOST_GANG_SIZE);
      const created = performance.now();
      const bound = await readUntil(`${group} to be bound`, () => ctx.workload.boundMembers(group), (n) => n === LOST_GANG_SIZE, 15_000);
      // The queue has long since counted the gang running when the store loses its binds.
      await sleep(BOUND_FOR_MS);
      // Everything acknowledged since the gang's last create (not the creates themselves: the user would redo those).
      const lost = faults.loseWrites(performance.now() - created);
      const down = faults.add({ answer: { type: "status", code: 503 } });
      const resources = Object.entries(lost.byResource).map(([resource, n]) => `${n} ${resource.replace(/^\//, "")}`).join(", ");
      const lostText = `lost ${lost.creates} creates, ${lost.binds} binds, ${lost.updates} updates, ${lost.deletes} deletes (${resources}); ${lost.watchesEnded} watches ended 410; API 503 for ${API_DOWN_MS / 1000} s`;
      return {
        holdMs: performance.now() - started + API_DOWN_MS,
        heal: async () => faults.remove(down),
        report: async () => ({ happened: bound < LOST_GANG_SIZE ? `${group}: ${bound} of ${LOST_GANG_SIZE} bound before the restart; ${lostText}` : lostText, ok: bound === LOST_GANG_SIZE && lost.binds > 0 }),
      };
    },
  };
}

/** workerd stopped, its Durable Object storage removed, started again: every DO starts empty. */
export function durableObjectStateLost(): Fault {
  return {
    name: "Durable Object state lost",
    expected: "DO state rebuilt, nothing twice",
    deadlineMs: 45_000,
    async inject(ctx) {
      await ctx.stack.worker.stop();
      const files = filesUnder(ctx.durableObjectsDir);
      rmSync(ctx.durableObjectsDir, { recursive: true, force: true });
      await ctx.stack.worker.restart();
      const happened = `workerd stopped, its DO storage (${files} files) wiped, started again`;
      return {
        async report() {
          if ((await ctx.workload.look()).lost === 0) return { happened, ok: files > 0 };
          // Not healed by itself: does a relay restart (its relist feeds every object to the Worker again) heal it?
          const killed = ctx.relays.get("relay-a");
          if (!killed) return { happened, ok: files > 0 };
          const started = performance.now();
          await killRelay(killed);
          await ctx.relayBack("relay-a", killed);
          const left = await readUntil("the workload after a relay restart", () => ctx.workload.look(), (count) => count.lost === 0, 20_000, 250);
          const after = left.lost === 0 ? `healed ${((performance.now() - started) / 1000).toFixed(1)} s after relay-a was SIGKILLed and restarted` : `still ${left.lost} lost 20 s after a relay restart`;
          return { happened: `${happened}; not healed until then; ${after}`, ok: files > 0 };
        },
      };
    },
  };
}

/** The relay's wall clock stepped back, then forward again (the next row), mid-burst. */
export function clockFaults(): Fault[] {
  const step = (name: string, deltaMs: number): Fault => ({
    name,
    expected: "work goes on (monotonic timers)",
    deadlineMs: 40_000,
    async inject(ctx) {
      const offset = await ctx.stepClock(deltaMs);
      return { report: async () => ({ happened: `relay's Date.now() stepped ${deltaMs > 0 ? "+" : ""}${deltaMs / 1000} s (now ${offset / 1000} s off)`, ok: true }) };
    },
  });
  return [step(`relay clock step back ${CLOCK_STEP_MS / 1000} s`, -CLOCK_STEP_MS), step(`relay clock step forward ${CLOCK_STEP_MS / 1000} s`, CLOCK_STEP_MS)];
}

function filesUnder(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
  } catch {
    return 0;
  }
}
