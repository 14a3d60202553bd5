/**
 * The chaos suite: starts the local stack with the relay as its own process (behind a
 * TCP proxy to the Worker, with leader election), creates the mixed workload, and for
 * each fault runs a burst, injects the fault mid-burst, heals it after its length, and
 * waits with a deadline until every expected child exists exactly once. Prints the table
 * and `faults: N injected, N survived, lost: L, duplicated: D`; returns the exit code.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitFor } from "../../cli/wait.ts";
import { seededRandom } from "../../sim/faults/random.ts";
import { testStack } from "../e2e/harness.ts";
import { relayBundle } from "../bench/util.ts";
import { chaosFaults, selectFaults, type ChaosContext, type Fault } from "./faults.ts";
import { startProxy } from "./proxy.ts";
import { killRelay, startRelayProc, type RelayProc } from "./relays.ts";
import { allSurvived, formatTable, ledgerLine, summaryLine, type ChaosRow } from "./table.ts";
import { NAMESPACE, NODES, Workload } from "./workload.ts";
import { Ledger, type RowLedger } from "./ledger.ts";
import type { SlotCount } from "./slots.ts";

/** How the suite is run. */
export interface ChaosOptions {
  readonly seed: number;
  /** Only faults whose name contains one of these (case-insensitive); all when empty. */
  readonly only: readonly string[];
  /** Keep the relay logs and state folder (printed) instead of removing them. */
  readonly keep: boolean;
  readonly progress: (line: string) => void;
  readonly print: (line: string) => void;
}

/** How soon a converged look is looked at again, to see that nothing late is duplicated. */
const CONFIRM_MS = 1_500;
/** When in the burst the fault goes in. */
const INJECT_AFTER_MS = 300;

/** Runs the suite; resolves with the exit code (0: every fault survived). */
export async function runChaos(options: ChaosOptions): Promise<number> {
  const faults = selectFaults(chaosFaults(), options.only);
  if (faults.length === 0) {
    options.print(`no fault matches ${options.only.join(", ")}; faults: ${chaosFaults().map((f) => f.name).join("; ")}`);
    return 2;
  }
  const logDir = mkdtempSync(join(tmpdir(), "edgeloop-chaos-"));
  const { progress } = options;
  progress("starting the stack (sim, Worker in workerd) and bundling the relay");
  const stack = await testStack({ nodes: [...NODES], nodeGpus: 0 });
  stack.sim.faults.clear();
  stack.sim.faults.reseed(options.seed);
  const relays = new Map<string, RelayProc>();
  /** Why relays exited on their own (read and emptied per row). */
  const restarts: string[] = [];
  /** Relays not restarted when they exit. */
  const down = new Set<string>();
  let ending = false;
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  let script: string | undefined;
  // The relays' wall clock: an offset in this file, read by their clock preload at start and on SIGUSR2.
  const clockFile = join(logDir, "clock-offset");
  let clockOffsetMs = 0;
  writeFileSync(clockFile, "0");
  const ledger = new Ledger(NAMESPACE);
  ledger.watch(stack.sim.cluster);
  const workload = new Workload(stack.sim.cluster, seededRandom(options.seed));
  try {
    await stack.relay.stop(); // replaced by relay processes, which a SIGKILL can end
    script = await relayBundle();
    const bundle = script;
    proxy = await startProxy(stack.worker.url);
    const through = proxy.url;
    const ctx: ChaosContext = {
      stack,
      proxy,
      relays,
      down,
      async startRelay(identity) {
        const relay = await startRelayProc(stack, bundle, through, identity, logDir, identity === "relay-a", clockFile);
        relays.set(identity, relay);
        relay.child.once("exit", (code, signal) => {
          if (ending || down.has(identity) || relays.get(identity) !== relay) return;
          restarts.push(`${identity} exited (${signal ?? `code ${String(code)}`})`);
          // As the kubelet restarts a container (its first back-off is 10 s; 1 s here).
          setTimeout(() => {
            if (ending || down.has(identity) || relays.get(identity) !== relay) return;
            ctx.startRelay(identity).catch((error: unknown) => progress(`  could not restart ${identity}: ${(error as Error).message}`));
          }, 1_000);
        });
        return relay;
      },
      async relayBack(identity, previous) {
        await waitFor(`${identity} to run again`, () => relays.get(identity) !== previous, (again) => again, { timeoutMs: 60_000, intervalMs: 100 });
        return relays.get(identity) ?? previous;
      },
      async leader() {
        const lease = (await stack.sim.cluster.find({ apiVersion: "coordination.k8s.io/v1", kind: "Lease" }, "default", "edgeloop-relay")) as { spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } } | undefined;
        const spec = lease?.spec;
        if (!spec?.holderIdentity || !spec.renewTime) return undefined;
        // A lease not renewed within its duration has no holder.
        return Date.now() + clockOffsetMs - Date.parse(spec.renewTime) <= (spec.leaseDurationSeconds ?? 15) * 1000 ? spec.holderIdentity : undefined;
      },
      workload,
      ledger,
      apiServer: new URL(stack.apiUrl).host,
      durableObjectsDir: join(stack.dir, "do"),
      async stepClock(deltaMs) {
        clockOffsetMs += deltaMs;
        writeFileSync(clockFile, String(clockOffsetMs));
        for (const relay of relays.values()) if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill("SIGUSR2");
        return clockOffsetMs;
      },
      progress,
    };
    progress("starting relay-a (its own process, leader election on)");
    await ctx.startRelay("relay-a");
    await waitFor("relay-a to lead (the Lease's holder)", () => ctx.leader(), (leader) => leader === "relay-a", { timeoutMs: 30_000, intervalMs: 200 });
    progress("creating the workload: 6 FederatedLearningJobs, a JointInferenceService, 3 NerveXJobs, a gang, 2 autonomous edge pods");
    await workload.create();
    const rows: ChaosRow[] = [];
    for (const fault of faults) {
      progress(`fault: ${fault.name}`);
      restarts.length = 0;
      rows.push(await runRow(ctx, workload, fault, restarts));
      const row = rows.at(-1);
      if (row) progress(`  ${row.survived ? "survived" : "NOT survived"}: ${row.happened}; lost ${row.lost}, duplicated ${row.duplicated}, converged ${row.convergeS === undefined ? "never" : `in ${row.convergeS.toFixed(1)} s`}`);
    }
    options.print(formatTable(rows));
    options.print(ledgerLine(rows, ledger.totals));
    options.print(summaryLine(rows));
    if (options.keep) options.print(`relay logs: ${logDir}`);
    return allSurvived(rows) ? 0 : 1;
  } finally {
    ending = true;
    ledger.stop();
    for (const relay of relays.values()) await killRelay(relay).catch(() => undefined);
    await proxy?.close();
    await stack.stop();
    if (script) rmSync(dirname(script), { recursive: true, force: true });
    if (!options.keep) rmSync(logDir, { recursive: true, force: true });
  }
}

/** One row: burst, fault mid-burst, heal after its length, wait for convergence, confirm, clean up. */
async function runRow(ctx: ChaosContext, workload: Workload, fault: Fault, restarts: readonly string[]): Promise<ChaosRow> {
  const faults = ctx.stack.sim.faults;
  await fault.prepare?.(ctx);
  faults.clearJournal();
  ctx.ledger.beginRow();
  const started = performance.now();
  const burst = workload.burst();
  await sleep(INJECT_AFTER_MS);
  const injectedAt = performance.now();
  let injected: Awaited<ReturnType<Fault["inject"]>> = {};
  let failure: string | undefined;
  try {
    injected = await fault.inject(ctx);
  } catch (error) {
    failure = `injection failed: ${(error as Error).message}`;
  }
  await burst.catch((error: unknown) => ctx.progress(`  burst: ${(error as Error).message}`));
  // One look every 250 ms from the burst's end: converged once the fault is healed and the
  // children have been right for CONFIRM_MS on end; the time counts from the first right
  // look of that run (which may come before the heal, for a fault the system rides out).
  const healAt = injectedAt + (injected.holdMs ?? 0);
  const deadline = injectedAt + fault.deadlineMs;
  let healed = false;
  let rightSince: number | undefined;
  let convergedAt: number | undefined;
  let count: SlotCount = await workload.look();
  let shown = "";
  while (performance.now() < deadline) {
    if (!healed && performance.now() >= healAt) {
      healed = true;
      try {
        await injected.heal?.();
      } catch (error) {
        failure ??= `heal failed: ${(error as Error).message}`;
      }
    }
    const at = performance.now();
    count = await workload.look();
    if (count.lost === 0 && count.duplicated === 0) {
      rightSince ??= at;
      if (healed && performance.now() - rightSince >= CONFIRM_MS) {
        convergedAt = rightSince;
        break;
      }
    } else {
      rightSince = undefined;
      const waiting = `${((performance.now() - injectedAt) / 1000).toFixed(1)} s: waiting for ${count.examples.join(" ")}${count.lost + count.duplicated > count.examples.length ? " …" : ""}`;
      if (waiting.replace(/^[\d.]+ s/, "") !== shown) ctx.progress(`  ${waiting}`);
      shown = waiting.replace(/^[\d.]+ s/, "");
    }
    await sleep(250);
  }
  if (!healed) await injected.heal?.().catch(() => undefined);
  const report = await injected.report?.().catch((error: unknown) => ({ happened: `report failed: ${(error as Error).message}`, ok: false }));
  const seen = ctx.ledger.endRow();
  try {
    await fault.cleanup?.(ctx);
  } catch (error) {
    failure ??= `cleanup failed: ${(error as Error).message}`;
  }
  faults.clear();
  ctx.proxy.resume();
  const converged = convergedAt !== undefined;
  const state = converged ? `${count.once}/${count.expected} once each` : `${count.once}/${count.expected} once; ${count.examples.join(" ")}`;
  return {
    fault: fault.name,
    injectedAtS: (injectedAt - started) / 1000,
    expected: `${count.expected} children once; ${fault.expected}`,
    happened: [failure, report?.happened, restarts.length > 0 ? `${restarts.join(", ")}, restarted` : undefined, state, seenText(seen)].filter((part) => part !== undefined).join("; "),
    lost: count.lost + seen.lost,
    duplicated: Math.max(count.duplicated, seen.duplicated),
    seen: { created: seen.created, replies: seen.replies, lost: seen.lost, duplicated: seen.duplicated },
    convergeS: convergedAt === undefined ? undefined : (convergedAt - injectedAt) / 1000,
    survived: converged && failure === undefined && (report?.ok ?? true) && count.lost === 0 && count.duplicated === 0 && seen.lost === 0 && seen.duplicated === 0,
  };
}

/** What the ledger saw during the row, when it saw something wrong. */
function seenText(seen: RowLedger): string | undefined {
  if (seen.lost === 0 && seen.duplicated === 0) return undefined;
  return `seen meanwhile: ${seen.lost} lost, ${seen.duplicated} duplicated (${seen.examples.join("; ")})`;
}
