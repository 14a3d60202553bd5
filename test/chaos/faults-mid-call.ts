/**
 * Chaos rows that strike in the middle of one call: a NerveX replicas POST (the Worker's
 * answer to the relay dropped; the relay SIGKILLed while it creates the pods; creates
 * failing part-way, then the client's retry) and a gang placement (the relay SIGKILLed
 * while it binds; the Worker's answer dropped). Each row checks, besides the workload's
 * slots, what the client was told against what exists (the ledger).
 */
import type { ClusterEvent } from "../../sim/contract.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { readUntil } from "./read-until.ts";
import type { ChaosContext, Fault } from "./faults.ts";
import { killRelay } from "./relays.ts";
import { describeAttempts, postCollectors, type ReplicasPost } from "./replicas-client.ts";
import { NAMESPACE, REPLICAS_JOB } from "./workload.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
/** How long a replicas POST is retried. */
const POST_DEADLINE_MS = 30_000;
const GANG_SIZE = 12;
const KILLED_GANG_SIZE = 24;
/** Each bind held this long by the API server: the relay is killed while its binds are held, and those die with it. */
const BIND_DELAY_MS = 1_000;

/** Every row that strikes mid-call. */
export function midCallFaults(): Fault[] {
  return [answerDroppedReplicas(), relayKilledReplicas(), partialCreateReplicas(), relayKilledGang(), answerDroppedGang()];
}

function answerDroppedReplicas(): Fault {
  const asked = 5;
  return replicasRow("replicas POST, Worker answer dropped", `${asked} collectors, one 200, all exist`, asked, async (ctx, post) => {
    ctx.proxy.dropAnswers({ request: "POST /v1/api/replicas", count: 1 });
    const before = ctx.proxy.dropped;
    await post();
    return `${ctx.proxy.dropped - before} answer dropped`;
  });
}

function relayKilledReplicas(): Fault {
  const asked = 30;
  return replicasRow("relay SIGKILL during replicas POST", `${asked} collectors, one 200, all exist`, asked, async (ctx, post) => {
    const first = firstEvent(ctx, (event) => event.type === "ADDED" && isCollector(event.object), 20_000);
    const posting = post();
    const seen = await first;
    const killed = ctx.relays.get("relay-a");
    if (killed) await killRelay(killed);
    const atKill = ctx.ledger.replicasCreated(REPLICAS_JOB, "collector");
    await posting;
    return seen ? `relay-a killed with ${atKill} of ${asked} created` : "no collector was created before the kill";
  });
}

function partialCreateReplicas(): Fault {
  const asked = 40;
  return replicasRow("partial create, then the client's retry", `${asked} collectors, never more`, asked, async (ctx, post) => {
    const faults = ctx.stack.sim.faults;
    const rule = faults.add({ verbs: ["create"], resources: ["pods"], namespace: NAMESPACE, answer: { type: "status", code: 500 }, probability: 0.25, count: 10 });
    await post();
    const refused = faults.journal().filter((entry) => entry.rule === rule && entry.answer !== undefined).length;
    faults.remove(rule);
    return `${refused} pod creates answered 500`;
  });
}

/**
 * A row around one replicas POST of `asked` collectors: `strike` starts it (through
 * `post`) with its fault; the report says how the client fared and how many pods exist.
 */
function replicasRow(name: string, expected: string, asked: number, strike: (ctx: ChaosContext, post: () => Promise<ReplicasPost>) => Promise<string>): Fault {
  return {
    name,
    expected,
    deadlineMs: 45_000,
    async inject(ctx) {
      let outcome: ReplicasPost | undefined;
      const post = async (): Promise<ReplicasPost> => (outcome = await postCollectors(ctx.apiServer, asked, ctx.ledger, POST_DEADLINE_MS));
      const struck = await strike(ctx, post);
      return {
        async report() {
          const created = ctx.ledger.replicasCreated(REPLICAS_JOB, "collector");
          const client = outcome ? `client: ${describeAttempts(outcome.attempts)}${outcome.urls ? ` (${outcome.urls.length} URLs)` : ", no 200"}` : "client never called";
          return { happened: `${struck}; ${client}; ${created} collectors created`, ok: outcome?.urls !== undefined };
        },
      };
    },
    async cleanup(ctx) {
      await ctx.workload.removeReplicas();
    },
  };
}

/** What a gang row's strike reports once the row is over. */
type GangReport = () => Promise<{ readonly happened: string; readonly ok: boolean }>;

/** A row placing a new gang of `size` named `<prefix>-<n>`: `strike` adds it (`place`) with its fault. */
function gangRow(name: string, prefix: string, size: number, strike: (ctx: ChaosContext, group: string, place: () => Promise<void>) => Promise<GangReport>): Fault {
  let rows = 0;
  return {
    name,
    expected: `all ${size} members bound once`,
    deadlineMs: 45_000,
    async inject(ctx) {
      const group = `${prefix}-${++rows}`;
      return { report: await strike(ctx, group, () => ctx.workload.addGang(group, size)) };
    },
  };
}

function relayKilledGang(): Fault {
  return gangRow("relay SIGKILL during a gang placement", "gang-kill", KILLED_GANG_SIZE, async (ctx, group, place) => {
    const faults = ctx.stack.sim.faults;
    const slowBinds = faults.add({ verbs: ["create"], resources: ["pods"], subresource: "binding", namespace: NAMESPACE, answer: { type: "delay", ms: BIND_DELAY_MS } });
    const held = (): number => faults.journal().filter((entry) => entry.rule === slowBinds && entry.name?.startsWith(`${group}-`)).length;
    await place();
    const sent = await readUntil("the placement's first bind", held, (n) => n > 0, 20_000, 5);
    const killed = ctx.relays.get("relay-a");
    if (killed) await killRelay(killed);
    const atKill = held();
    faults.remove(slowBinds);
    return async () => ({ happened: sent > 0 ? `relay-a killed with ${atKill} of ${KILLED_GANG_SIZE} binds sent (held ${BIND_DELAY_MS / 1000} s, dropped with it); ${await ctx.workload.boundMembers(group)} bound now` : "no bind was sent before the kill", ok: sent > 0 });
  });
}

function answerDroppedGang(): Fault {
  return gangRow("gang placement, Worker answers dropped", "gang-drop", GANG_SIZE, async (ctx, group, place) => {
    const before = ctx.proxy.dropped;
    // The first answers to event batches that name the group (one of them places it).
    ctx.proxy.dropAnswers({ request: "POST /v1/events/gang", contains: group, count: 3 });
    await place();
    const dropped = await readUntil("the gang's answers to be dropped", () => ctx.proxy.dropped - before, (n) => n >= 3, 10_000);
    return async () => ({ happened: `${dropped} answers to the gang's event batches dropped; ${await ctx.workload.boundMembers(group)} of ${GANG_SIZE} bound now`, ok: dropped > 0 });
  });
}

function isCollector(object: KubeObject): boolean {
  const labels = object.metadata.labels ?? {};
  return object.metadata.namespace === NAMESPACE && labels["nervexjob-name"] === REPLICAS_JOB && labels["replica-type"] === "collector";
}

/** Resolves true at the first Pod event `match` selects, false after `timeoutMs`. */
function firstEvent(ctx: ChaosContext, match: (event: ClusterEvent) => boolean, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve(false);
    }, timeoutMs);
    const stop = ctx.stack.sim.cluster.watch(POD, (event) => {
      if (!match(event)) return;
      clearTimeout(timer);
      stop();
      resolve(true);
    });
  });
}
