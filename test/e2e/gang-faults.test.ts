/**
 * The gang queue under the faults of issue 28 (finding 5), end to end on the sim.
 *
 * Binds the API server acknowledged and then lost: a gang of 300 is bound whole and its
 * bind check is over; the API server comes back without 108 of the binds (and their
 * Scheduled Events), as one restored from an older state does; its watches end with 410
 * Gone and the relay relists. The queue sees pods it holds as bound that are not, warns
 * `BindLost` on each and binds them again to the nodes the group holds: the group is whole
 * again, each pod with one Scheduled Event.
 *
 * Scheduled Events lost: the API server refuses the relay's Events while a gang is placed
 * (as when the relay is killed between a plan's binds and their Events, or the API server
 * loses them). The queue, which watches the relay's Scheduled Events, records those that
 * never came once the group is seen bound: one per pod, none twice.
 *
 * Sim only: a real control plane cannot be made to lose acknowledged writes, nor refuse
 * chosen requests, from here (the chaos suite injects both on the sim).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import type { RunningSim } from "../../sim/index.ts";
import { createNamespaces, e2eStack, TARGET, type E2EStack } from "./harness.ts";
import { gangRows, readerToken } from "./readers.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

const skip = TARGET !== "sim" ? "a real API server cannot be made to lose acknowledged writes, nor refuse chosen requests, from a test" : false;
const POD = { apiVersion: "v1", kind: "Pod" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const NAMESPACE = "lost";
const GROUP = "big";
const SIZE = 300;
const LOST = 108;
/** The bind check (a Worker variable, 10 s by default): after it, the queue sends nothing more for a group seen bound whole. */
const BIND_CHECK_SECONDS = 1;
const WAIT_MS = 60_000;

let stack: E2EStack;
let reader: string;

before(async () => {
  if (skip) return;
  stack = await e2eStack({ nodes: 3, workerVars: { EDGELOOP_GANG_BIND_CHECK_SECONDS: String(BIND_CHECK_SECONDS) } });
  await createNamespaces(stack, [NAMESPACE, "refused"]);
  reader = await readerToken(stack, "gang-reader");
});

after(async () => {
  if (skip) return;
  await stack.stop();
});

/** Pod `i` of a gang of `size` (`GROUP` of `SIZE` in `NAMESPACE` by default): 50m cpu, so that 100 fit on each sim node (8 cpu, 110 pods). */
function member(i: number, namespace = NAMESPACE, size = SIZE): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `${GROUP}-${i}`, namespace, labels: { "fluxnetes.group-name": GROUP, "fluxnetes.group-size": String(size) } },
    spec: { schedulerName: "fluxnetes", terminationGracePeriodSeconds: 0, containers: [{ name: "work", image: "busybox", resources: { requests: { cpu: "50m" } } }] },
  } as KubeObject;
}

async function pods(namespace = NAMESPACE): Promise<Obj[]> {
  return (await stack.cluster.list(POD, { namespace })).items as Obj[];
}

async function scheduledEvents(namespace = NAMESPACE): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace })).items as Obj[]).filter((e) => e.reason === "Scheduled");
}

/** How many Scheduled Events each pod has, by name. */
function perPod(events: readonly Obj[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.involvedObject.name, (counts.get(event.involvedObject.name) ?? 0) + 1);
  return counts;
}

/**
 * The API server comes back from a restart without writes it had acknowledged: `names`'
 * binds (their pods unbound and Pending again) and the Scheduled Events about them. As
 * etcd restored from an earlier state: the objects are put back without a watch event,
 * the history is compacted past every open watch (each ends with 410 Gone and relists).
 */
async function loseBinds(sim: RunningSim, names: ReadonlySet<string>): Promise<void> {
  const store = sim.cluster.store;
  const kept = [...store.entries()].flatMap(({ resource, stored }) => {
    const object = stored.object as Obj;
    const about = object.involvedObject?.name as string | undefined;
    if (resource.endsWith("events") && object.reason === "Scheduled" && about !== undefined && names.has(about)) return [];
    if (!(resource.endsWith("pods") && object.metadata.namespace === NAMESPACE && names.has(object.metadata.name))) return [{ resource, object: stored.object }];
    const { nodeName: _bound, ...spec } = object.spec as Obj;
    // As it was before its bind: an older resourceVersion (a client compares versions, not contents).
    const metadata = { ...stored.object.metadata, resourceVersion: String(Number(stored.object.metadata.resourceVersion) - 1) };
    return [{ resource, object: { ...stored.object, metadata, spec, status: { phase: "Pending" } } }];
  });
  store.restore(kept, 0);
  // A write after the restart, then the history compacted through it: every watch, wherever it was, is past (410 Gone).
  await sim.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-restart", namespace: NAMESPACE } } as KubeObject);
  store.history.compact(store.resourceVersion);
  sim.closeWatches();
}

test("a gang whose acknowledged binds the API server lost is made whole again: BindLost on each, bound again to its reserved node, one Scheduled Event each", { skip }, async () => {
  for (let i = 0; i < SIZE; i += 1) await stack.cluster.create(member(i));
  const bound = await waitFor(`all ${SIZE} pods bound (those bound)`, async () => (await pods()).filter((p) => p.spec.nodeName), (found) => found.length === SIZE, { timeoutMs: WAIT_MS, describe: (found) => String(found.length) });
  const reserved = new Map(bound.map((p) => [p.metadata.name as string, p.spec.nodeName as string] as const));
  await waitFor("a Scheduled Event per pod (how many)", scheduledEvents, (found) => found.length === SIZE, { timeoutMs: WAIT_MS, describe: (found) => String(found.length) });
  // The bind check fires BIND_CHECK_SECONDS after the pass that started the group and, every pod seen bound,
  // sends nothing and is not set again. A loss before it would be mended by it: wait until it is past.
  const lastScheduled = Math.max(...(await scheduledEvents()).map((e) => Date.parse(e.lastTimestamp ?? e.metadata.creationTimestamp)));
  await waitFor("the bind check past", () => Date.now(), (now) => now > lastScheduled + (BIND_CHECK_SECONDS + 3) * 1000, { timeoutMs: WAIT_MS });

  const lost = new Set([...reserved.keys()].sort().slice(0, LOST));
  await loseBinds(stack.sim as RunningSim, lost);
  assert.equal((await pods()).filter((p) => p.spec.nodeName).length, SIZE - LOST, `${SIZE - LOST} of ${SIZE} bound, ${LOST} Pending`);

  const whole = await waitFor(`all ${SIZE} pods bound again (those bound)`, async () => (await pods()).filter((p) => p.spec.nodeName), (found) => found.length === SIZE, {
    timeoutMs: WAIT_MS,
    describe: async (found) => `${found.length} bound; the queue says ${JSON.stringify((await gangRows(stack, reader, NAMESPACE)).map((r) => [r.group, r.state, r.present, r.size]))}`,
  });
  for (const pod of whole) assert.equal(pod.spec.nodeName, reserved.get(pod.metadata.name), `${pod.metadata.name} bound again to the node the group holds`);
  // The Events of a plan go after its binds: wait for them too.
  const warnings = await waitFor(`a BindLost Warning per lost bind (how many)`, async () => ((await stack.cluster.list(EVENT, { namespace: NAMESPACE })).items as Obj[]).filter((e) => e.reason === "BindLost"), (found) => found.length >= LOST, {
    timeoutMs: WAIT_MS,
    describe: (found) => String(found.length),
  });
  assert.deepEqual(warnings.map((e) => e.involvedObject.name).sort(), [...lost].sort(), "one BindLost Warning per lost bind");
  assert.match(warnings[0]?.message, new RegExp(`^gang ${NAMESPACE}/${GROUP}: pod ${NAMESPACE}/\\S+ was seen bound to \\S+ but is unbound now \\(the API server lost its bind\\); \\d+ of the group's ${SIZE} pods lost theirs; bind sent again to \\S+$`));
  const scheduled = await waitFor("a Scheduled Event per pod again (how many)", scheduledEvents, (found) => found.length >= SIZE, { timeoutMs: WAIT_MS, describe: (found) => String(found.length) });
  assert.deepEqual([...perPod(scheduled).values()].filter((n) => n !== 1), [], "one Scheduled Event per pod: the lost ones recorded again, none twice");
  const [row] = (await gangRows(stack, reader, NAMESPACE)).filter((r) => r.group === GROUP);
  assert.deepEqual([row?.state, row?.present, row?.size], ["running", SIZE, SIZE]);
});

test("Scheduled Events the API server refused while a gang was placed are recorded once the group is seen bound: one per pod, none twice", { skip }, async () => {
  // After the first test's 300 pods, 10 pod slots are left on each of the 3 nodes.
  const size = 24;
  const sim = stack.sim as RunningSim;
  // 422 is permanent: the relay drops the Event (as one killed between the binds and their Events never sends it).
  const rule = sim.faults.add({ verbs: ["create"], resources: ["events"], answer: { type: "status", code: 422 } });
  for (let i = 0; i < size; i += 1) await stack.cluster.create(member(i, "refused", size));
  await waitFor(`all ${size} pods bound (those bound)`, async () => (await pods("refused")).filter((p) => p.spec.nodeName), (found) => found.length === size, { timeoutMs: WAIT_MS, describe: (found) => String(found.length) });
  // A plan's Events go after its binds: the pods can be seen bound before their Events were tried.
  const refusals = (): number => sim.faults.journal().filter((entry) => entry.rule === rule && entry.answer !== undefined).length;
  await waitFor(`the relay's ${size} Scheduled Events refused (how many)`, refusals, (n) => n >= size, { timeoutMs: WAIT_MS, describe: String });
  sim.faults.remove(rule);
  assert.deepEqual(await scheduledEvents("refused"), [], "none recorded while refused");
  const scheduled = await waitFor(`a Scheduled Event for each of the ${size} pods (how many)`, () => scheduledEvents("refused"), (found) => perPod(found).size === size, { timeoutMs: WAIT_MS, describe: (found) => String(perPod(found).size) });
  assert.deepEqual([...perPod(scheduled).values()].filter((n) => n !== 1), [], "one per pod");
  assert.match(scheduled[0]?.message, new RegExp(`^Successfully assigned refused/${GROUP}-\\d+ to \\S+ \\(gang refused/${GROUP}, ${size} pods; recorded again: the first record of this bind was lost\\)$`));
});
