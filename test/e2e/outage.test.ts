/**
 * Issue 35, item 4: a Worker outage loses nothing. For each way the Worker can be away
 * (the link `down`: an unreachable host; `5xx`: an edge answering 503 for it; `reset`: each
 * answer cut mid-body), training pods of Sedna FederatedLearningJobs are deleted at 50/s
 * while it lasts; once it ends, every slot is healed within 30 s, each exactly once (one
 * `Recreated` per deletion, one live pod per slot), and the outage was visible
 * (`edgeloop_worker_up` 0, then 1). Runs on the sim and on the real control plane. The
 * long outages (1 and 10 minutes, 10,000 parents) are `npm run bench -- outage`.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { NO_SHAPE, type LinkCommand } from "../../scripts/lib/link/spec.ts";
import { flJob } from "../support/fl-job.ts";
import { createNamespaces, e2eStack, type E2EStack } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

const NS = "outage-fl";
const JOBS = 12;
const POD = { apiVersion: "v1", kind: "Pod" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const TRAIN = "federatedlearningjob.sedna.io/worker-type=train";
/** Each way's deletions, one per job (a job's reconcile sees them all once it runs). */
const DELETIONS = 8;
const HEAL_MS = 30_000;

let stack: E2EStack;

before(async () => {
  stack = await e2eStack({ nodes: ["cloud", "edge1", "edge2"], link: NO_SHAPE });
  await createNamespaces(stack, [NS]);
  await stack.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: NS }, spec: { url: "/m", format: "pb" } } as KubeObject);
  for (const node of ["edge1", "edge2"]) await stack.cluster.create({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: NS }, spec: { url: "/d", format: "txt", nodeName: node } } as KubeObject);
  for (let i = 0; i < JOBS; i++) await stack.cluster.create(flJob(`job-${i}`, NS));
  await waitFor(`${JOBS * 2} training pods`, livePods, (pods) => pods.length === JOBS * 2, { timeoutMs: 60_000 });
});

after(async () => {
  await stack.stop();
});

async function livePods(): Promise<Obj[]> {
  return ((await stack.cluster.list(POD, { namespace: NS, labelSelector: TRAIN })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

/** `job/worker` of every live training pod, one entry per pod. */
async function slots(): Promise<string[]> {
  return (await livePods()).map((p) => `${String(p.metadata.labels["federatedlearningjob.sedna.io/name"])}/${String(p.metadata.labels["edgeloop.dev/worker"])}`).sort();
}

async function recreatedEvents(): Promise<number> {
  return ((await stack.cluster.list(EVENT, { namespace: NS })).items as Obj[]).filter((e) => e.reason === "Recreated").reduce((sum, e) => sum + Number(e.count ?? 1), 0);
}

async function workerUp(): Promise<string> {
  return /^edgeloop_worker_up (\d)$/m.exec(await (await fetch(`${stack.relay.opsUrl}/metrics`)).text())?.[1] ?? "absent";
}

const WAYS: readonly { readonly name: string; readonly command: LinkCommand }[] = [
  { name: "unreachable (link down)", command: { kind: "down" } },
  { name: "answered 5xx by the edge", command: { kind: "fault", fault: "5xx" } },
  { name: "answers reset mid-body", command: { kind: "fault", fault: "reset" } },
];

for (const way of WAYS) {
  test(`a Worker ${way.name} while pods are deleted at 50/s: every slot healed once within 30 s of its return`, { timeout: 180_000 }, async (t) => {
    const link = stack.link;
    assert.ok(link);
    const before = await slots();
    assert.equal(before.length, JOBS * 2);
    assert.equal(new Set(before).size, before.length, "one pod per slot before");
    const recreatedBefore = await recreatedEvents();
    link.apply(way.command);
    // The outage is seen before anything is deleted (a reconcile or the 5 s probe).
    await waitFor("edgeloop_worker_up 0", workerUp, (up) => up === "0", { timeoutMs: 30_000 });
    const victims = (await livePods()).filter((_, i) => i % 3 === 0).slice(0, DELETIONS);
    for (const victim of victims) {
      await stack.cluster.delete(POD, NS, String(victim.metadata.name), { gracePeriodSeconds: 0 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor("the deletions to be done", livePods, (pods) => pods.length === JOBS * 2 - DELETIONS, { timeoutMs: 30_000 });
    const returned = performance.now();
    link.apply({ kind: "up" });
    await waitFor("every slot healed", slots, (now) => now.length === JOBS * 2, { timeoutMs: HEAL_MS });
    const healedMs = performance.now() - returned;
    assert.ok(healedMs <= HEAL_MS, `healed ${Math.round(healedMs)} ms after the Worker returned`);
    t.diagnostic(`${DELETIONS} deletions healed ${Math.round(healedMs)} ms after the Worker returned`);
    assert.deepEqual(await slots(), before, "the same slots, each with one pod: nothing lost, nothing twice");
    await waitFor("one Recreated per deletion", recreatedEvents, (n) => n >= recreatedBefore + DELETIONS, { timeoutMs: 10_000 });
    assert.equal(await recreatedEvents(), recreatedBefore + DELETIONS, "nothing done twice");
    await waitFor("edgeloop_worker_up 1", workerUp, (up) => up === "1", { timeoutMs: 15_000 });
  });
}
