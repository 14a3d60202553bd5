/**
 * The bad-input suite (`npm run fuzz`): starts the local stack, gives it a workload of
 * every controller family (the chaos suite's: Sedna jobs and a service, NerveX jobs,
 * gangs, pods on autonomous edge nodes) and waits for it to converge and hold still;
 * then feeds every HTTP surface generated invalid requests, and malformed HTTP framing
 * over raw sockets, and counts per surface what was tried, answered 2xx/3xx, 4xx and 5xx,
 * how often the surface crashed (a reset, a hang, a process error, a failed health check)
 * and how many cluster objects changed: the workload's objects compared before and after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { stopOnSignal } from "../../cli/signals.ts";
import { startStack, type Stack } from "../../scripts/lib/stack.ts";
import { seededRandom } from "../../sim/faults/random.ts";
import { NAMESPACE, NODES, Workload } from "../chaos/workload.ts";
import { admissionOutcome, emptyTally, exitCode, formatTable, note, record, refusedUnread, summaryLine, totals, type Tally } from "./counting.ts";
import type { FuzzRequest } from "./generators.ts";
import { requestSender, sendRaw, type Endpoint } from "./send.ts";
import { diffSnapshots, snapshotCluster, type ClusterSnapshot } from "./snapshot.ts";
import { surfaces, type Surface, type SurfaceTarget } from "./surfaces.ts";
import type { FramingCase } from "./framing.ts";
import { framingSurfaces, smuggledControl, type FramingSurface } from "./framing-surfaces.ts";
import { framingOutcome, sendBytes } from "./raw.ts";

/** What a run takes. */
export interface FuzzOptions {
  /** Requests generated per surface. */
  readonly runs: number;
  /** fast-check seed: the same seed sends the same requests. */
  readonly seed: number;
  /** Only surfaces whose name contains one of these (all when empty). */
  readonly only: readonly string[];
  /** Progress lines (stderr). */
  readonly progress: (line: string) => void;
  /** The report (stdout). */
  readonly print: (line: string) => void;
  /** Print every request and its answer on stderr. */
  readonly verbose?: boolean;
}

/** A NerveX coordinator of the workload (test/chaos/workload.ts names its jobs nx-0, nx-1...). */
const WORKLOAD_COORDINATOR = "nx-0-coordinator";

/** How often (requests) a surface's health is checked while it is fed. */
const HEALTH_EVERY = 25;
/** How long the cluster must stay still before the suite starts, and the most it waits for that. */
const QUIET_MS = 2_000;
const QUIET_DEADLINE_MS = 60_000;
/** After a surface: time for anything it set off (an outbox entry, a plan) to reach the cluster. */
const SETTLE_MS = 1_000;
/** After the last surface: one outbox long-poll (the stack's is 5 s) and then some. */
const FINAL_SETTLE_MS = 7_000;

/** Runs the suite; resolves with the exit code. */
export async function runFuzz(options: FuzzOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-fuzz-"));
  options.progress(`fuzz: starting the local stack (seed ${options.seed}, ${options.runs} requests per surface)`);
  let stack: Stack | undefined;
  try {
    // guardFraming: the Worker as npm start serves it, behind the Node front that refuses malformed framing (ADR 0033).
    stack = await startStack({ kubeconfigPath: join(dir, "kubeconfig"), persistDir: join(dir, "do"), nodes: [...NODES], nodeGpus: 0, guardFraming: true, progress: (step) => options.progress(`  ${step}`) });
    const started = stack;
    // Interrupted (Ctrl-C): stop workerd, the relay and the sim, and remove the folder.
    stopOnSignal(
      async () => {
        await started.stop();
        rmSync(dir, { recursive: true, force: true });
      },
      (signal) => options.progress(`fuzz: ${signal}: stopping the stack`),
    );
    options.progress("fuzz: creating the workload (6 FederatedLearningJobs, a JointInferenceService, 3 NerveXJobs, a gang, 2 autonomous edge pods) and waiting for it to converge");
    await new Workload(stack.sim.cluster, seededRandom(options.seed)).create();
    return await feed(stack, options);
  } finally {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the cluster holds still for `QUIET_MS` (controllers and the sim's start-up writes done). */
async function quiet(stack: Stack, progress: (line: string) => void): Promise<ClusterSnapshot> {
  const deadline = Date.now() + QUIET_DEADLINE_MS;
  let last = snapshotCluster(stack.sim.cluster);
  for (;;) {
    await sleep(QUIET_MS);
    const now = snapshotCluster(stack.sim.cluster);
    const changes = diffSnapshots(last, now);
    if (changes.length === 0) return now;
    progress(`fuzz: still changing: ${changes.slice(0, 3).map((c) => `${c.how} ${c.key}`).join(", ")}`);
    if (Date.now() > deadline) throw new Error(`the cluster did not hold still for ${QUIET_MS} ms within ${QUIET_DEADLINE_MS / 1000} s`);
    last = now;
  }
}

async function feed(stack: Stack, options: FuzzOptions): Promise<number> {
  const front = stack.front;
  const endpoints: Record<SurfaceTarget, Endpoint | undefined> = {
    worker: { origin: stack.worker.url },
    front: front ? { origin: front.url, caPem: front.caPem } : undefined,
    api: { origin: stack.apiUrl },
    ops: { origin: stack.relay.opsUrl },
    sim: { origin: stack.sim.url },
  };
  const nodeName = (await stack.sim.cluster.list({ apiVersion: "v1", kind: "Node" })).items[0]?.metadata.name ?? "sim-node-1";
  const chosen = (name: string): boolean => options.only.length === 0 || options.only.some((word) => name.includes(word));
  const manifest = stack.relay.engine.manifest;
  const all = surfaces({ manifest, now: new Date().toISOString(), nodeName }).filter((s) => chosen(s.name));
  const hosts = Object.fromEntries(Object.entries(endpoints).flatMap(([target, endpoint]) => (endpoint ? [[target, new URL(endpoint.origin).host]] : [])));
  const framing = framingSurfaces({ manifest, hosts, namespace: NAMESPACE, coordinator: WORKLOAD_COORDINATOR }).filter((s) => chosen(s.name));
  if (all.length === 0 && framing.length === 0) throw new Error(`no surface matches ${options.only.join(", ")}`);
  const sender = requestSender(stack.secret);
  const tallies: Tally[] = [];
  // The relay and the sim run in this process: an error escaping one of their handlers is a crash of the surface being fed.
  let current: Tally | undefined;
  const onCrash = (error: unknown): void => {
    const tally = current ?? tallies.at(-1);
    if (!tally) return;
    tally.crashes += 1;
    note(tally, `process error: ${String(error)}`);
  };
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  try {
    const beforeControls = snapshotCluster(stack.sim.cluster);
    const acted = await controls(framing, endpoints, options.progress);
    options.progress("fuzz: waiting for the cluster to hold still");
    let before = await quiet(stack, options.progress);
    if (acted > 0) {
      // The comparison that counts 'changed' must see what the controls did, or a zero would measure nothing.
      const seen = diffSnapshots(beforeControls, before);
      options.progress(`fuzz: the ${acted} controls changed ${seen.length} objects, as the comparison sees them: ${seen.slice(0, 4).map((c) => `${c.how} ${c.key}`).join(", ")}${seen.length > 4 ? ", ..." : ""}`);
      if (seen.length === 0) throw new Error("the controls were acted on but the cluster comparison saw no change: 'changed' would measure nothing");
    }
    for (const [index, surface] of all.entries()) {
      const tally = emptyTally(surface.name);
      tallies.push(tally);
      current = tally;
      const endpoint = endpoints[surface.target];
      if (!endpoint) {
        options.progress(`fuzz: ${surface.name}: not served by this stack, skipped`);
        continue;
      }
      const started = performance.now();
      const requests = fc.sample(surface.requests, { numRuns: options.runs, seed: options.seed + index });
      const trace = options.verbose ? options.progress : undefined;
      await feedSurface(surface, endpoint, sender, tally, requests, () => healthy(endpoints), trace);
      await sleep(SETTLE_MS);
      before = countChanges(tally, before, stack);
      options.progress(progressLine(tally, started));
    }
    for (const surface of framing) {
      const tally = emptyTally(surface.name);
      tallies.push(tally);
      current = tally;
      const endpoint = endpoints[surface.target];
      if (!endpoint) continue;
      const started = performance.now();
      await feedFraming(surface.cases(options.runs, options.seed), endpoint, tally, () => healthy(endpoints), options.verbose ? options.progress : undefined);
      await sleep(SETTLE_MS);
      before = countChanges(tally, before, stack);
      options.progress(progressLine(tally, started));
    }
    current = undefined;
    await lateChanges(stack, before, tallies, options);
  } finally {
    process.off("uncaughtException", onCrash);
    process.off("unhandledRejection", onCrash);
  }
  options.print(formatTable(tallies));
  const examples = tallies.filter((t) => t.examples.length > 0);
  if (examples.length > 0) {
    options.print("");
    for (const tally of examples) for (const example of tally.examples) options.print(`${tally.surface}: ${example}`);
  }
  const sum = totals(tallies);
  options.print(summaryLine(sum));
  return exitCode(sum);
}

/** Counts what changed in the cluster since `before` against `tally`; the snapshot now. */
function countChanges(tally: Tally, before: ClusterSnapshot, stack: Stack): ClusterSnapshot {
  const after = snapshotCluster(stack.sim.cluster);
  const changes = diffSnapshots(before, after);
  tally.changed += changes.length;
  for (const change of changes) note(tally, `changed: ${change.how} ${change.key}`);
  return after;
}

function progressLine(tally: Tally, started: number): string {
  return `fuzz: ${tally.surface}: ${tally.tried} tried, ${tally.ok} 2xx/3xx, ${tally.client} 4xx, ${tally.closed} closed, ${tally.notImplemented} 501, ${tally.server} 5xx, ${tally.crashes} crashes, ${tally.changed} changed (${((performance.now() - started) / 1000).toFixed(1)} s)`;
}

/**
 * Sends each framing surface's smuggled request on its own, before the cluster is
 * remembered: it must be acted on (2xx), or finding nothing smuggled would prove
 * nothing. A control that fails is said, not fatal (that surface's smuggling is then
 * unmeasured). Resolves with how many were acted on.
 */
async function controls(framing: readonly FramingSurface[], endpoints: Record<SurfaceTarget, Endpoint | undefined>, progress: (line: string) => void): Promise<number> {
  let acted = 0;
  for (const surface of framing) {
    const endpoint = endpoints[surface.target];
    if (!endpoint || !surface.control.changes) continue;
    const answer = await sendBytes(endpoint, surface.control.bytes);
    const worked = smuggledControl(answer.statuses);
    if (worked) acted += 1;
    progress(`fuzz: ${surface.name}: the request a wrong framing would smuggle, sent on its own: ${answer.statuses.join(", ") || answer.ended}${worked ? " (acted on: smuggling it would show as a change)" : ` — NOT acted on, smuggling is not measured here: ${answer.text.slice(0, 200)}`}`);
  }
  return acted;
}

/** Sends each malformed framing case on its own connection, checking health every `HEALTH_EVERY`; a surface found down stops being fed. */
async function feedFraming(cases: readonly FramingCase[], endpoint: Endpoint, tally: Tally, health: () => Promise<string | undefined>, trace: ((line: string) => void) | undefined): Promise<void> {
  for (const [index, framing] of cases.entries()) {
    const answer = await sendBytes(endpoint, framing.bytes);
    const outcome = framingOutcome(answer, framing.mayWait === true);
    trace?.(`  ${tally.surface} #${index}: ${framing.label} [${framing.bytes.byteLength} B] -> ${answer.statuses.join(",") || answer.ended}`);
    record(tally, outcome, () => `${framing.label} -> ${answer.statuses.join(", ") || answer.ended}: ${answer.text.slice(0, 160).replace(/\r?\n/g, " | ")}`);
    if ((index + 1) % HEALTH_EVERY === 0 || index === cases.length - 1) {
      const down = await health();
      if (down !== undefined) {
        tally.crashes += 1;
        note(tally, `health check failed after ${framing.label}: ${down}`);
        return;
      }
    }
  }
}

/** Sends `requests`, checking health every `HEALTH_EVERY`; a surface found down stops being fed. */
async function feedSurface(surface: Surface, endpoint: Endpoint, sender: ReturnType<typeof requestSender>, tally: Tally, requests: readonly FuzzRequest[], health: () => Promise<string | undefined>, trace: ((line: string) => void) | undefined): Promise<void> {
  for (const [index, request] of requests.entries()) {
    trace?.(`  ${surface.name} #${index}: ${request.method} ${request.target.slice(0, 80)} [${request.signing}, ${request.contentType ?? "-"}, ${request.body.byteLength} B] ${request.label.slice(0, 100)}`);
    for (const answer of await sender.send(endpoint, request)) {
      const outcome = admissionOutcome(refusedUnread(request, answer.outcome, surface.target === "worker"), answer.text);
      trace?.(`    -> ${outcome.kind === "status" ? outcome.status : `${outcome.kind} ${outcome.reason}`} ${answer.text.slice(0, 160)}`);
      record(tally, outcome, () => `${request.method} ${request.target.slice(0, 80)} [${request.signing}, ${request.contentType ?? "no content-type"}] ${request.label} -> ${answerGist(answer.text)}`);
    }
    if ((index + 1) % HEALTH_EVERY === 0 || index === requests.length - 1) {
      const down = await health();
      if (down !== undefined) {
        tally.crashes += 1;
        note(tally, `health check failed after ${request.method} ${request.target.slice(0, 80)} (${request.label}): ${down}`);
        return;
      }
    }
  }
}

/** The start of an answer, or of an AdmissionReview's own status (what says why). */
function answerGist(text: string): string {
  const status = text.indexOf('"status":{"code"');
  return (status >= 0 ? text.slice(status) : text).slice(0, 160);
}

/** Every surface's health: undefined when all answer, else which did not. */
async function healthy(endpoints: Record<SurfaceTarget, Endpoint | undefined>): Promise<string | undefined> {
  const checks: [SurfaceTarget, string, (status: number) => boolean][] = [
    ["worker", "/healthz", (s) => s === 200],
    ["front", "/healthz", (s) => s > 0], // the front serves no /healthz: any answer over TLS is alive
    ["api", "/healthz", (s) => s === 200],
    ["ops", "/readyz", (s) => s === 200],
    ["sim", "/healthz", (s) => s === 200],
  ];
  for (const [target, path, ok] of checks) {
    const endpoint = endpoints[target];
    if (!endpoint) continue;
    const answer = await sendRaw(endpoint, "GET", path, {}, new Uint8Array(0), 10_000);
    if (answer.outcome.kind !== "status") return `${target} ${path}: ${answer.outcome.reason}`;
    if (!ok(answer.outcome.status)) return `${target} ${path}: ${answer.outcome.status}`;
  }
  return undefined;
}

/** Changes that reached the cluster only after their surface's settle time: a row of their own. */
async function lateChanges(stack: Stack, counted: ClusterSnapshot, tallies: Tally[], options: FuzzOptions): Promise<void> {
  options.progress(`fuzz: waiting ${FINAL_SETTLE_MS / 1000} s for late effects (an outbox long-poll)`);
  await sleep(FINAL_SETTLE_MS);
  const late = diffSnapshots(counted, snapshotCluster(stack.sim.cluster));
  if (late.length === 0) return;
  const tally = emptyTally("(late, any surface)");
  tally.changed = late.length;
  for (const change of late) note(tally, `changed: ${change.how} ${change.key}`);
  tallies.push(tally);
}
