/**
 * The faults of the chaos suite, one row each: what is done to the stack mid-burst, for
 * how long, how it is healed, and what the row must show besides convergence.
 */
import { waitFor, WaitTimeout } from "../../cli/wait.ts";
import type { Stack } from "../../scripts/lib/stack.ts";
import type { TcpProxy } from "./proxy.ts";
import type { RelayProc } from "./relays.ts";
import { killRelay, LEASE_SECONDS, stopRelay } from "./relays.ts";
import { retryEarliness } from "./retry-after.ts";
import type { Ledger } from "./ledger.ts";
import type { Workload } from "./workload.ts";
import { apiServerRestartLostWrites, clockFaults, durableObjectStateLost } from "./faults-restarts.ts";
import { midCallFaults } from "./faults-mid-call.ts";

/** What a fault can reach. */
export interface ChaosContext {
  readonly stack: Stack;
  readonly proxy: TcpProxy;
  /** The relay processes by identity (`relay-a` always; `relay-b` while a standby runs). */
  readonly relays: Map<string, RelayProc>;
  /**
   * Starts relay `identity` under supervision (`relay-a` serves the front): when it exits
   * (SIGKILLed, or having lost its lease, as client-go's leader election exits) it is
   * started again a second later, as the kubelet restarts a container, unless it is `down`.
   */
  startRelay(identity: string): Promise<RelayProc>;
  /** Relays not to start again when they exit (their pod is gone with its node). */
  readonly down: Set<string>;
  /** Waits until relay `identity` runs again (a process other than `previous`) and is ready. */
  relayBack(identity: string, previous: RelayProc): Promise<RelayProc>;
  /** The Lease's holder now. */
  leader(): Promise<string | undefined>;
  /** The workload the rows burst and count. */
  readonly workload: Workload;
  /** The continuous count of objects created and replies given. */
  readonly ledger: Ledger;
  /** `host:port` of the replicas API (relay-a's API port), as a coordinator is told. */
  readonly apiServer: string;
  /** The Worker's Durable Object storage folder. */
  readonly durableObjectsDir: string;
  /** Steps every relay's wall clock by `deltaMs` (monotonic clocks untouched); resolves with the offset now. */
  stepClock(deltaMs: number): Promise<number>;
  progress(message: string): void;
}

/** A fault once injected. */
export interface Injected {
  /** How long the fault lasts from its injection before `heal` (ms). */
  readonly holdMs?: number;
  heal?(): Promise<void>;
  /** What happened, and whether the fault's own check held (called once converged or at the deadline). */
  report?(): Promise<{ readonly happened: string; readonly ok: boolean }>;
}

/** One row of the suite. */
export interface Fault {
  readonly name: string;
  readonly expected: string;
  /** From the injection: how long the stack has to converge (ms). */
  readonly deadlineMs: number;
  /** Before the row's burst. */
  prepare?(ctx: ChaosContext): Promise<void>;
  inject(ctx: ChaosContext): Promise<Injected>;
  /** After the row, back to one relay leading, nothing injected. */
  cleanup?(ctx: ChaosContext): Promise<void>;
}

const RETRY_AFTER_SECONDS = 2;

function relay(ctx: ChaosContext, identity: string): RelayProc {
  const found = ctx.relays.get(identity);
  if (!found) throw new Error(`no relay ${identity}`);
  return found;
}

/** A rule on the sim's API for the row's length; reported with how many requests it answered. */
function apiFault(name: string, expected: string, rule: Parameters<Stack["sim"]["faults"]["add"]>[0], holdMs: number, check?: (ctx: ChaosContext) => { happened: string; ok: boolean }): Fault {
  return {
    name,
    expected,
    deadlineMs: 60_000,
    async inject(ctx) {
      const faults = ctx.stack.sim.faults;
      const id = faults.add(rule);
      return {
        holdMs,
        async heal() {
          faults.remove(id);
        },
        async report() {
          const answered = faults.journal().filter((entry) => entry.rule === id && entry.answer !== undefined).length;
          const own = check?.(ctx);
          return { happened: `${answered} requests answered so${own ? `; ${own.happened}` : ""}`, ok: own?.ok ?? answered > 0 };
        },
      };
    },
  };
}

/** Every fault, in the order run. */
export function chaosFaults(): Fault[] {
  return [
    {
      name: "relay SIGKILL mid-burst, restarted",
      expected: "restarted relay relists and heals",
      deadlineMs: 60_000,
      async inject(ctx) {
        const started = performance.now();
        const killed = relay(ctx, "relay-a");
        await killRelay(killed);
        await ctx.relayBack("relay-a", killed);
        const back = (performance.now() - started) / 1000;
        return { report: async () => ({ happened: `killed; restarted, ready in ${back.toFixed(1)} s`, ok: true }) };
      },
    },
    {
      name: "Worker down 30 s",
      expected: "relay retries, heals after",
      deadlineMs: 90_000,
      async inject(ctx) {
        await ctx.stack.worker.stop();
        return { holdMs: 30_000, heal: () => ctx.stack.worker.restart(), report: async () => ({ happened: "workerd stopped 30 s, started again", ok: true }) };
      },
    },
    {
      name: "Durable Object restart",
      expected: "DO state kept, no double work",
      deadlineMs: 60_000,
      async inject(ctx) {
        // workerd ended and started again on the same storage: every Durable Object is evicted and reloaded.
        await ctx.stack.worker.restart();
        return { report: async () => ({ happened: "workerd restarted, DO storage kept", ok: true }) };
      },
    },
    {
      name: "leader failover mid-burst",
      expected: "standby takes the lease, heals",
      deadlineMs: 60_000,
      async prepare(ctx) {
        await ctx.startRelay("relay-b");
      },
      async inject(ctx) {
        const before = await ctx.leader();
        // Its pod is gone with its node: not restarted during the row.
        ctx.down.add(before ?? "relay-a");
        await killRelay(relay(ctx, before ?? "relay-a"));
        return {
          async report() {
            const after = await ctx.leader();
            return { happened: `leader ${before ?? "?"} killed; ${after ?? "nobody"} leads`, ok: after !== undefined && after !== before };
          },
        };
      },
      async cleanup(ctx) {
        // Back to relay-a leading alone: start it, then stop relay-b cleanly (it releases the lease).
        for (const identity of ctx.down) {
          ctx.down.delete(identity);
          const stopped = ctx.relays.get(identity);
          if (stopped && (stopped.child.exitCode !== null || stopped.child.signalCode !== null)) await ctx.startRelay(identity);
        }
        const b = ctx.relays.get("relay-b");
        ctx.down.add("relay-b");
        if (b) await stopRelay(b);
        ctx.relays.delete("relay-b");
        ctx.down.delete("relay-b");
        await waitFor("relay-a to lead again (the Lease's holder)", () => ctx.leader(), (leader) => leader === "relay-a", { timeoutMs: (LEASE_SECONDS + 10) * 1000, intervalMs: 200 }).catch((error: unknown) => {
          if (!(error instanceof WaitTimeout)) throw error;
          ctx.progress(`  ${error.message}`);
        });
      },
    },
    {
      name: "watch 410 Gone storm",
      expected: "informers relist, nothing missed",
      deadlineMs: 60_000,
      async inject(ctx) {
        const storm = ctx.stack.sim.faults.goneStorm({ rounds: 6, intervalMs: 700 });
        return { report: async () => ({ happened: `${await storm} watches ended with 410 over 6 rounds`, ok: true }) };
      },
    },
    {
      name: "duplicate and reordered events",
      expected: "idempotent: nothing twice",
      deadlineMs: 60_000,
      async inject(ctx) {
        const faults = ctx.stack.sim.faults;
        const before = { ...faults.shaped };
        faults.shapeWatches({ duplicate: 0.3, reorder: 0.3 });
        return {
          holdMs: 5_000,
          heal: async () => faults.stopShaping(),
          report: async () => {
            const duplicated = faults.shaped.duplicated - before.duplicated;
            const reordered = faults.shaped.reordered - before.reordered;
            return { happened: `${duplicated} events sent twice, ${reordered} pairs swapped`, ok: duplicated > 0 && reordered > 0 };
          },
        };
      },
    },
    apiFault("API 409 Conflict", "retried, created once", { verbs: ["create", "patch", "update"], resources: ["pods", "deployments", "services", "federatedlearningjobs", "nervexjobs"], answer: { type: "status", code: 409 }, count: 20 }, 4_000),
    apiFault(
      `API 429 Retry-After ${RETRY_AFTER_SECONDS}`,
      `no retry before ${RETRY_AFTER_SECONDS} s`,
      { verbs: ["create"], resources: ["pods"], answer: { type: "status", code: 429, retryAfterSeconds: RETRY_AFTER_SECONDS }, count: 8 },
      6_000,
      (ctx) => {
        const early = retryEarliness(ctx.stack.sim.faults.journal(), RETRY_AFTER_SECONDS * 1000);
        return { happened: early.retried === 0 ? "no retry seen" : `${early.retried} retried, soonest ${(early.soonestMs / 1000).toFixed(2)} s after`, ok: early.retried > 0 && early.tooSoon === 0 };
      },
    ),
    apiFault("API 500", "retried with backoff", { verbs: ["create", "patch", "update", "delete"], answer: { type: "status", code: 500 }, probability: 0.5, count: 30 }, 4_000),
    apiFault("API slow (1.5 s)", "slower, still once", { verbs: ["get", "list", "create", "patch", "update", "delete"], answer: { type: "delay", ms: 1_500 }, count: 60 }, 5_000),
    {
      name: "relay↔Worker connection cut",
      expected: "relay reconnects, heals",
      deadlineMs: 60_000,
      async inject(ctx) {
        ctx.proxy.cut();
        return { holdMs: 8_000, heal: async () => ctx.proxy.resume(), report: async () => ({ happened: "cut 8 s, then resumed", ok: true }) };
      },
    },
    apiServerRestartLostWrites(),
    ...midCallFaults(),
    ...clockFaults(),
    // Last: until the relay restarts, the gang queue it empties places nothing (every later gang would stay Pending).
    durableObjectStateLost(),
  ];
}

/** The faults `only` selects by a word of their name, any case (all when `only` is empty). */
export function selectFaults(faults: readonly Fault[], only: readonly string[]): Fault[] {
  if (only.length === 0) return [...faults];
  return faults.filter((fault) => only.some((word) => fault.name.toLowerCase().includes(word.toLowerCase())));
}
