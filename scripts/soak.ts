/**
 * `npm run soak -- --minutes N`: the local stack (the relay as its own process) under a
 * steady mixed churn of every controller family; samples the RSS of the relay, the sim
 * and workerd, and the Worker's request rate; fails (exit 1) if the relay's or the sim's
 * memory grows without bound (the criterion: scripts/lib/soak/verdict.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { cli, stringOptions } from "../cli/args.ts";
import { stopOnSignal } from "../cli/signals.ts";
import { DEFAULT_START_NODES } from "../sim/flags.ts";
import { bundleRelay } from "./lib/bundle.ts";
import { ROOT } from "./lib/controllers.ts";
import { startStack, type Stack } from "./lib/stack.ts";
import { gitCommit, thisMachine } from "./lib/bench-report/machine.ts";
import { readResults, writeResults } from "./lib/bench-report/write.ts";
import { inspectorGc, localGc } from "./lib/soak/gc.ts";
import { metricSum } from "./lib/soak/metrics.ts";
import { childPid, rssMiB } from "./lib/soak/proc.ts";
import { startRelayProcess, type RelayProcess } from "./lib/soak/relay-process.ts";
import { JUDGED, progressLine, rssChart, samplesTable, soakJsonLines, verdictLines, type SoakSample } from "./lib/soak/report.ts";
import { DEFAULT_BOUNDS, judgeGrowth, type Verdict } from "./lib/soak/verdict.ts";
import { churn, KEEP, prepare } from "./lib/soak/workload.ts";

const number = (min: number): z.ZodCoercedNumber => z.coerce.number().min(min);
const Flags = z.object({
  minutes: number(0.5).default(10),
  interval: number(1).default(10),
  rate: number(0.1).default(4),
  "max-growth": number(0).default(DEFAULT_BOUNDS.maxGrowthMiBPerHour),
  warmup: number(0).default(DEFAULT_BOUNDS.warmupSeconds),
  out: z.string().min(1).default("bench/results"),
});

const HELP = `usage: npm run soak -- [--help] [--minutes N] [--interval S] [--rate R] [--max-growth M] [--warmup W] [--out DIR]

Starts the local stack (sim, Worker in workerd, and the relay as its own process, as the
image runs it) and runs a steady mixed churn for N minutes: Sedna FederatedLearningJobs and
JointInferenceServices, NerveXJobs and gangs of 4 pods created, the oldest deleted beyond
${KEEP} of each (the cluster's size stays level); a child pod of a live job deleted
(self-heal); a node's autonomy-duration annotation toggled; Events older than a minute
pruned (as the API server's --event-ttl does). Every S seconds it samples the RSS of the
relay, of the sim (this process: the sim, the churn and Miniflare's host side) and of
workerd, and the Worker's request rate (the relay's edgeloop_reconciles_total: snapshots
and events batches sent), and prints a progress line on stderr. The relay's and the sim's
RSS are read before and after a full GC of each (the relay runs with --inspect on
loopback for it): after, it is the memory still held, which a leak grows; before, a point
on the GC's sawtooth, whose period here is minutes. At the end: a table and
the verdicts (stderr), every sample and verdict as JSON lines (stdout), and
DIR/soak.jsonl and DIR/soak-rss.svg (RSS over time), shown in DIR/README.md.

It fails (exit 1) when the relay's or the sim's memory after GC grows without bound: on the samples
of the second half and after W seconds of warm-up (caches, V8's heap, the sim's watch
history of 10,000 events and the Events filling to their level), the Theil-Sen slope
(median of pairwise slopes, robust to the GC's sawtooth) projected over an hour exceeds
M MiB, and the level confirms it (the median of the last third of those samples is more
than 2 MiB, and at least half the slope's prediction, above the median of the first
third). With fewer than 6 such samples (a run shorter than about W + 1 minutes at the
default interval) memory is reported, not judged, and it exits 0 saying so. workerd's
RSS is reported, not judged.

  --minutes N      how long the churn runs (default 10)
  --interval S     seconds between samples (default 10)
  --rate R         churn operations per second (default 4)
  --max-growth M   MiB per hour the trend may project (default ${DEFAULT_BOUNDS.maxGrowthMiBPerHour})
  --warmup W       seconds never judged (default ${DEFAULT_BOUNDS.warmupSeconds})
  --out DIR        where soak.jsonl and soak-rss.svg go (default bench/results)`;

const flags = cli({ name: "soak", help: HELP, options: stringOptions(Flags), schema: Flags });
const progress = (message: string): void => void process.stderr.write(`${message}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Everything started, stopped in reverse; safe to call twice. */
function resources(): { dir: string; add(stop: () => Promise<void>): void; stopAll(): Promise<void> } {
  const dir = mkdtempSync(path.join(tmpdir(), "edgeloop-soak-"));
  const stops: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  return {
    dir,
    add: (stop) => void stops.push(stop),
    async stopAll(): Promise<void> {
      while (stops.length > 0) await stops.pop()?.().catch((error: unknown) => progress(`soak: while stopping: ${(error as Error).message}`));
    },
  };
}

/** Samples for `minutes` while the churn runs at `rate` operations per second. */
async function soak(stack: Stack, relay: RelayProcess): Promise<SoakSample[]> {
  const cluster = stack.sim.cluster;
  const work = churn(cluster);
  const workerdPid = childPid("workerd");
  const gc = localGc();
  const relayGc = await inspectorGc(relay.inspectPort);
  const started = performance.now();
  const endAt = started + flags.minutes * 60_000;
  let running = true;
  const churning = (async (): Promise<void> => {
    while (running) {
      const stepAt = performance.now();
      await work.step();
      await sleep(Math.max(0, 1000 / flags.rate - (performance.now() - stepAt)));
    }
  })();
  const samples: SoakSample[] = [];
  let last = { at: started, reconciles: metricSum(await relay.metrics(), "edgeloop_reconciles_total") };
  try {
    for (let next = started; ; next += flags.interval * 1000) {
      await sleep(Math.max(0, next - performance.now()));
      const now = performance.now();
      const reconciles = metricSum(await relay.metrics(), "edgeloop_reconciles_total");
      const counts = work.counts();
      const before = { relay: rssMiB(relay.child.pid), sim: rssMiB(process.pid) };
      const simHeapMiB = gc();
      const relayHeapMiB = await relayGc.collect();
      const sample: SoakSample = {
        relayHeapMiB,
        simHeapMiB,
        t: Math.round((now - started) / 100) / 10,
        relayMiB: rssMiB(relay.child.pid),
        simMiB: rssMiB(process.pid),
        relayBeforeGcMiB: before.relay,
        simBeforeGcMiB: before.sim,
        workerdMiB: rssMiB(workerdPid),
        workerRequestsPerSecond: now > last.at ? Math.round(((reconciles - last.reconciles) / ((now - last.at) / 1000)) * 10) / 10 : 0,
        pods: (await cluster.list({ apiVersion: "v1", kind: "Pod" })).items.length,
        operations: Object.values(counts.done).reduce((a, b) => a + b, 0),
        failures: Object.values(counts.failed).reduce((a, b) => a + b, 0),
      };
      last = { at: now, reconciles };
      samples.push(sample);
      progress(progressLine(sample, flags.minutes) + (counts.lastError && sample.failures > 0 ? `; last failure: ${counts.lastError.slice(0, 160)}` : ""));
      if (relay.child.exitCode !== null) throw new Error(`the relay process exited (${relay.child.exitCode}) during the soak`);
      if (now >= endAt - 1) break;
    }
  } finally {
    running = false;
    await churning;
    relayGc.close();
  }
  const counts = work.counts();
  progress(`soak: churn operations done ${JSON.stringify(counts.done)}, failed ${JSON.stringify(counts.failed)}`);
  return samples;
}

async function main(): Promise<number> {
  const held = resources();
  stopOnSignal(() => held.stopAll(), (signal) => progress(`soak: ${signal}, stopping`));
  try {
    progress("soak: bundling the relay (what the image runs)");
    const script = path.join(held.dir, "relay.mjs");
    await bundleRelay(script);
    const stack = await startStack({ kubeconfigPath: path.join(held.dir, "kubeconfig"), persistDir: path.join(held.dir, "do"), nodes: DEFAULT_START_NODES.split(","), progress: (step) => progress(`soak: ${step}`) });
    held.add(() => stack.stop());
    // The stack's relay runs inside this process; the soak measures a relay process of its own.
    await stack.relay.stop();
    progress("soak: starting the relay as its own process");
    const relay = await startRelayProcess(stack, script, path.join(held.dir, "relay.log"));
    held.add(() => relay.stop());
    await prepare(stack.sim.cluster);
    progress(`soak: ${flags.minutes} min of mixed churn at ${flags.rate} operations/s, a sample every ${flags.interval} s`);
    const samples = await soak(stack, relay);

    const bounds = { ...DEFAULT_BOUNDS, maxGrowthMiBPerHour: flags["max-growth"], warmupSeconds: flags.warmup };
    // workerd's RSS (no GC to force from outside) is judged the same way but only reported.
    const readers = { ...JUDGED, workerd: (sample: SoakSample) => sample.workerdMiB };
    const verdicts: Record<string, Verdict> = Object.fromEntries(
      Object.entries(readers).map(([name, read]) => [name, judgeGrowth(samples.flatMap((s) => (read(s) === undefined ? [] : [{ t: s.t, mib: read(s) ?? 0 }])), bounds)]),
    );
    progress(`\n${samplesTable(samples)}\n`);
    for (const line of verdictLines(verdicts, bounds)) progress(line);
    const meta = { minutes: flags.minutes, interval: flags.interval, rate: flags.rate, bounds, date: new Date().toISOString(), commit: gitCommit(ROOT), machine: thisMachine() };
    const jsonl = soakJsonLines(samples, verdicts, meta);
    process.stdout.write(jsonl);
    const out = path.resolve(ROOT, flags.out);
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, "soak.jsonl"), jsonl);
    writeFileSync(path.join(out, "soak-rss.svg"), rssChart(samples, flags.minutes));
    progress(`soak: wrote ${path.relative(process.cwd(), path.join(out, "soak.jsonl"))} and soak-rss.svg`);
    // The results README shows the last soak beside the benchmarks' figures.
    const saved = readResults(out);
    if (saved.figures.length > 0) writeResults(out, saved.figures, saved.info);
    const judged = Object.entries(verdicts).filter(([name]) => name in JUDGED);
    const grows = judged.filter(([, v]) => v.outcome === "grows").map(([name]) => name);
    const unjudged = judged.filter(([, v]) => v.outcome === "too-short").map(([name]) => name);
    progress(grows.length > 0 ? `soak: FAILED: memory grows without bound: ${grows.join(", ")}` : unjudged.length > 0 ? `soak: not judged: ${unjudged.join(", ")}: too few samples after ${flags.warmup} s of warm-up (run --minutes ${Math.ceil(flags.warmup / 60) + 1} or more)` : "soak: passed: the relay's and the sim's memory stay level");
    return grows.length > 0 ? 1 : 0;
  } finally {
    await held.stopAll();
  }
}

process.exitCode = await main();
