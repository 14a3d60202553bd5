/**
 * Gang scheduling end to end, on the sim or a real control plane (e2eStack: Worker in
 * workerd, relay; on a real one kube-scheduler runs beside us), with real kubectl and the
 * upstream Fluxnetes examples unchanged: the examples run; an unsatisfiable group is
 * rejected once with its reason; a Job-owned group is deleted at its deadline through its
 * root owner (the Job controller releasing its pods); a Job's own activeDeadlineSeconds,
 * enforced by the Job controller, frees the group's nodes; three groups on a two-node
 * cluster show all-or-nothing, the reservation and backfill; priority orders the queue; a
 * group short of pods is warned about; the queue survives a Worker and a relay restart and
 * binds nothing twice. Every `fluxnetes` pod is bound by us alone: one Scheduled Event,
 * ours, per pod, and on a real control plane the relay's own accepted Binding in the audit
 * log. Every wait is a condition with a deadline.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { GangList, type GangRow } from "../../functions/controllers/gang/api/schema.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "../sim/kubectl.ts";
import { describePods, waitForGone, waitForObject } from "../support/cluster-waits.ts";
import { createNamespaces, e2eStack, type E2EStack } from "./harness.ts";
import { gangRows, readerToken } from "./readers.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

// The upstream examples, byte-identical (their sources: test/fixtures/fluxnetes/SOURCES.md).
const FIXTURES = join(import.meta.dirname, "../fixtures/fluxnetes");
const POD = { apiVersion: "v1", kind: "Pod" };
const JOB = { apiVersion: "batch/v1", kind: "Job" };
const EVENT = { apiVersion: "v1", kind: "Event" };
/** The component the relay records its Events as (kube-scheduler's are `default-scheduler`). */
const RELAY_COMPONENT = "edgeloop-relay";
/** The Job controller's finalizer on each pod it creates, removed once it has counted the pod. */
const JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
const skip = KUBECTL_SKIP;
/** How long a group short of pods waits before its Warning (a Worker variable). */
const ARRIVAL_TIMEOUT_SECONDS = 3;
/**
 * How long a group still arriving holds its place (a Worker variable; 30 s by default): the
 * partial group of one test would otherwise hold both nodes through the next one.
 * test/e2e/gang-arrival.test.ts runs with the default.
 */
const ARRIVAL_WINDOW_SECONDS = 2;
/** Waits for scheduling outcomes: a pass is well under a second here; a deadline is 5 s. */
const WAIT_MS = 20_000;

let stack: E2EStack;
let kubectl: Kubectl;
/** A token whose user may list pods everywhere: the gang API shows a caller only the namespaces where it may. */
let reader: string;

before(async () => {
  if (skip) return;
  // Two nodes of 8 cpu: small enough that groups must wait for each other.
  stack = await e2eStack({ nodes: ["node-1", "node-2"], workerVars: { EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS: String(ARRIVAL_TIMEOUT_SECONDS), EDGELOOP_GANG_ARRIVAL_WINDOW_SECONDS: String(ARRIVAL_WINDOW_SECONDS) } });
  kubectl = kubectlFor(stack.kubeconfigPath);
  await createNamespaces(stack, ["examples", "deadline", "job-deadline", "unsat", "three", "prio", "partial", "restart", "readers", "sizes"]);
  reader = await readerToken(stack, "gang-reader");
});

after(async () => {
  if (skip) return;
  await stack.stop();
});

/** The pods of `namespace`, not being deleted. */
async function pods(namespace: string): Promise<Obj[]> {
  return ((await stack.cluster.list(POD, { namespace })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

/** Events of `namespace` with `reason`, on the object `name` when given. */
async function events(namespace: string, reason: string, name?: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace })).items as Obj[]).filter((e) => e.reason === reason && (name === undefined || e.involvedObject?.name === name));
}

/** The gang queue's rows for `namespace`, through the relay's API as any client reads them. */
function gangs(namespace: string): Promise<GangRow[]> {
  return gangRows(stack, reader, namespace);
}

/** Waits until the row of `group` in `namespace` satisfies `ok`. */
async function gangRow(namespace: string, group: string, ok: (row: GangRow) => boolean): Promise<GangRow> {
  return waitFor(`gang ${namespace}/${group} (its row)`, async () => (await gangs(namespace)).find((r) => r.group === group), (r): r is GangRow => r !== undefined && ok(r), { timeoutMs: WAIT_MS });
}

/** A pod of group `group` (size `size`) asking `cpu` cores, optionally with a deadline and a priority class. */
function member(namespace: string, name: string, group: string, size: number, cpu: number, extra: { deadline?: number; priorityClassName?: string } = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { "fluxnetes.group-name": group, "fluxnetes.group-size": String(size) } },
    spec: {
      schedulerName: "fluxnetes",
      terminationGracePeriodSeconds: 0,
      ...(extra.deadline === undefined ? {} : { activeDeadlineSeconds: extra.deadline }),
      ...(extra.priorityClassName === undefined ? {} : { priorityClassName: extra.priorityClassName }),
      containers: [{ name: "work", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: String(cpu) } } }],
    },
  } as KubeObject;
}

/** Creates the pods of a group. */
async function createGroup(namespace: string, group: string, size: number, cpu: number, extra: { deadline?: number; priorityClassName?: string; count?: number } = {}): Promise<void> {
  for (let i = 0; i < (extra.count ?? size); i += 1) await stack.cluster.create(member(namespace, `${group}-${i}`, group, size, cpu, extra));
}

/** A Job of `name` whose two pods (group `name`, 8 cpu each, running until stopped) the Job controller ends after `seconds`. */
function deadlineJob(namespace: string, name: string, seconds: number): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace },
    spec: {
      activeDeadlineSeconds: seconds,
      parallelism: 2,
      completions: 2,
      backoffLimit: 0,
      template: {
        metadata: { labels: { "fluxnetes.group-name": name, "fluxnetes.group-size": "2" } },
        spec: {
          schedulerName: "fluxnetes",
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 0,
          containers: [{ name: "work", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "8" } } }],
        },
      },
    },
  } as KubeObject;
}

/** The names of `namespace`'s pods of `group` that are bound. */
async function boundOf(namespace: string, group: string): Promise<string[]> {
  return (await pods(namespace)).filter((p) => p.metadata.labels?.["fluxnetes.group-name"] === group && p.spec.nodeName).map((p) => p.metadata.name as string).sort();
}

/** Waits until every one of the `size` pods of `group` is bound. */
async function allBound(namespace: string, group: string, size: number): Promise<void> {
  await waitFor(`all ${size} pods of ${namespace}/${group} bound (those bound)`, () => boundOf(namespace, group), (bound) => bound.length === size, { timeoutMs: WAIT_MS });
}

test("the upstream examples run unchanged: each Job's pods and the lone Pod are bound by the gang scheduler, job-10's ten at once", { skip }, async () => {
  for (const file of ["job.yaml", "job-10.yaml", "batch-job1.yaml", "batch-job2.yaml", "batch-job3.yaml", "batch-job4.yaml", "batch-job5.yaml"]) {
    const namespace = file === "job-10.yaml" ? "examples-10" : "examples";
    if (file === "job-10.yaml") await kubectl(["create", "namespace", namespace]);
    assert.match(await kubectl(["apply", "-n", namespace, "-f", join(FIXTURES, file)]), /job\.batch\/\S+ created/);
  }
  assert.match(await kubectl(["apply", "-n", "examples", "-f", join(FIXTURES, "pod.yaml")]), /pod\/pod created/);
  for (const [namespace, job] of [["examples", "job"], ["examples-10", "job"], ["examples", "job1"], ["examples", "job2"], ["examples", "job3"], ["examples", "job4"], ["examples", "job5"]] as const) {
    await waitForObject(stack.cluster, JOB, namespace, job, (found: Obj) => found.status?.conditions?.some((c: Obj) => c.type === "Complete" && c.status === "True") === true, WAIT_MS);
  }
  const ten = (await stack.cluster.list(POD, { namespace: "examples-10" })).items as Obj[];
  assert.equal(ten.length, 10);
  const scheduled = await events("examples-10", "Scheduled");
  assert.equal(scheduled.length, 10);
  for (const event of scheduled) {
    assert.match(event.message, /\(gang examples-10\/job, 10 pods\)$/, "bound as one group of ten");
    assert.equal(event.reportingComponent, RELAY_COMPONENT, "recorded by the relay, not by kube-scheduler");
  }
  for (const pod of [...((await stack.cluster.list(POD, { namespace: "examples" })).items as Obj[]), ...ten]) {
    if (pod.metadata.name !== "pod") assert.ok(pod.spec.nodeName, `${pod.metadata.name} is bound`);
  }
  await waitFor("the lone Pod bound (its Scheduled Events)", () => events("examples", "Scheduled", "pod"), (scheduled) => scheduled.length === 1, { timeoutMs: WAIT_MS });
  // pod.yaml declares activeDeadlineSeconds: 5 and has no owner: at its deadline the pod itself is deleted.
  await waitForGone(stack.cluster, POD, "examples", "pod", WAIT_MS);
  assert.match((await events("examples", "DeadlineExceeded", "pod"))[0]?.message ?? "", /^gang examples\/pod reached its deadline of 5s .*; deleting Pod pod$/);
});

test("job-deadline.yaml: at the group's deadline its root owner, the Job, is deleted, and its pods with it", { skip }, async () => {
  await kubectl(["apply", "-n", "deadline", "-f", join(FIXTURES, "job-deadline.yaml")]);
  const [pod] = await waitFor("the Job's pod bound (those bound)", async () => (await pods("deadline")).filter((p) => p.spec.nodeName), (bound) => bound.length > 0, { timeoutMs: WAIT_MS, describe: describePods });
  assert.ok(pod?.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER), "the Job controller tracks the pod: only it can release the pod once the Job is deleted");
  await waitForGone(stack.cluster, JOB, "deadline", "job-deadline", WAIT_MS);
  // Deleted in the background: the garbage collector deletes the pods, the Job controller removes its finalizer.
  await waitFor("the Job's pods gone", async () => (await stack.cluster.list(POD, { namespace: "deadline" })).items, (left) => left.length === 0, { timeoutMs: WAIT_MS, describe: describePods });
  const warned = await events("deadline", "DeadlineExceeded", pod?.metadata.name);
  assert.equal(warned.length, 1);
  assert.match(warned[0]?.message, /reached its deadline of 5s .*; deleting Job job-deadline$/);
});

test("a Job's own activeDeadlineSeconds: the Job controller fails it and deletes its pods; the group waiting for their nodes starts", { skip }, async () => {
  // Two pods of 8 cpu hold both nodes until the Job controller ends the Job (the gang queue knows no end for them).
  await stack.cluster.create(deadlineJob("job-deadline", "holder", 5));
  await allBound("job-deadline", "holder", 2);
  await createGroup("job-deadline", "waiter", 2, 8);
  // Queued, not started: all or nothing, while the Job's pods hold the nodes.
  await gangRow("job-deadline", "waiter", (r) => r.state === "reserved" || r.state === "pending");
  const job = (await waitForObject(stack.cluster, JOB, "job-deadline", "holder", (found: Obj) => found.status?.conditions?.some((c: Obj) => c.type === "Failed" && c.status === "True") === true, WAIT_MS)) as Obj;
  const failed = job.status.conditions.find((c: Obj) => c.type === "Failed" && c.status === "True");
  assert.equal(failed.reason, "DeadlineExceeded", "ended by the Job controller");
  await allBound("job-deadline", "waiter", 2);
  assert.deepEqual(await boundOf("job-deadline", "holder"), [], "the Job controller deleted its pods");
  assert.equal((await gangs("job-deadline")).find((r) => r.group === "holder"), undefined, "the queue forgot the ended group");
  const ours = (await events("job-deadline", "DeadlineExceeded")).filter((e) => e.reportingComponent === RELAY_COMPONENT);
  assert.deepEqual(ours, [], "the Job's deadline is the Job controller's to enforce, not the gang queue's");
  for (const name of ["waiter-0", "waiter-1"]) await stack.cluster.delete(POD, "job-deadline", name);
  await waitFor("the waiter's pods gone", () => pods("job-deadline"), (left) => left.length === 0, { timeoutMs: WAIT_MS, describe: describePods });
});

test("job-unsatisfiable.yaml: rejected at once with the reason, each pod PodScheduled False/Unschedulable, reported once", { skip }, async () => {
  await kubectl(["apply", "-n", "unsat", "-f", join(FIXTURES, "job-unsatisfiable.yaml")]);
  const row = await gangRow("unsat", "job", (r) => r.state === "rejected" && r.present === 10);
  assert.equal(row.reason?.kind, "unsatisfiable");
  assert.match(row.waitingFor ?? "", /^can never fit on this cluster: cpu: 10 pods need 184 more on 2 candidate nodes$/);
  const unschedulable = (p: Obj): boolean => p.status?.conditions?.some((c: Obj) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable") === true;
  const unsat = await waitFor("every pod marked Unschedulable", () => pods("unsat"), (listed) => listed.length === 10 && listed.every(unschedulable), {
    timeoutMs: WAIT_MS,
    describe: (listed) => `${listed.length} pods, ${listed.filter(unschedulable).length} Unschedulable`,
  });
  for (const pod of unsat) assert.equal(pod.spec.nodeName, undefined);
  const condition = unsat[0]?.status.conditions.find((c: Obj) => c.type === "PodScheduled");
  assert.match(condition.message, /^gang unsat\/job \(10 pods\) can never fit on this cluster: cpu/);
  // Later passes (another group bound meanwhile) report nothing again: no retry loop.
  await createGroup("unsat", "later", 1, 1);
  await allBound("unsat", "later", 1);
  const warnings = await events("unsat", "FailedScheduling");
  assert.equal(warnings.length, 10, "one Warning per pod, not one per pass");
  await kubectl(["delete", "namespace", "unsat", "--wait=false"]);
  // The namespace's pods go first (on a real cluster the namespace controller takes its time): later groups need the cpu.
  await waitFor("unsat's pods gone", async () => (await stack.cluster.list(POD, { namespace: "unsat" })).items, (left) => left.length === 0, { timeoutMs: WAIT_MS, describe: describePods });
});

test("three groups on two nodes: all-or-nothing, a reservation for the head, backfill only where it does not delay it", { skip }, async () => {
  // a: 3 pods of 4 cpu, ends in 120 s. It leaves 4 cpu free on one node.
  await createGroup("three", "a", 3, 4, { deadline: 120 });
  await allBound("three", "a", 3);
  // b: 4 pods of 4 cpu needs the whole cluster: nothing of it is bound while 4 cpu are free.
  await createGroup("three", "b", 4, 4);
  const b = await gangRow("three", "b", (r) => r.state === "reserved");
  assert.equal(b.position, 1);
  const aRow = (await gangs("three")).find((r) => r.group === "a");
  assert.equal(aRow?.state, "running");
  assert.ok(aRow?.deadline !== null && b.reservedStart !== null && Math.abs(Date.parse(b.reservedStart) - Date.parse(aRow?.deadline ?? "")) < 2_000, `b is reserved for when a ends (${b.reservedStart} vs ${aRow?.deadline})`);
  assert.equal(b.reason?.resource, "cpu");
  // d: fits now, but runs past b's reservation (no deadline: the default duration): it must wait.
  await createGroup("three", "d", 1, 4);
  const d = await gangRow("three", "d", (r) => r.state === "pending" && r.reason?.kind === "delays-reservation");
  assert.equal(d.position, 2);
  // c: fits now and ends (30 s) before b's reservation: backfilled.
  await createGroup("three", "c", 1, 4, { deadline: 30 });
  await allBound("three", "c", 1);
  assert.deepEqual(await boundOf("three", "b"), [], "all or nothing: no pod of b holds a node while it waits");
  assert.deepEqual(await boundOf("three", "d"), []);
  // a and c go: b starts, all four pods at once; d still waits behind nothing it may delay.
  for (const name of ["a-0", "a-1", "a-2", "c-0"]) await stack.cluster.delete(POD, "three", name);
  await allBound("three", "b", 4);
  assert.deepEqual(await boundOf("three", "d"), [], "the cluster is full");
  assert.equal((await gangs("three")).find((r) => r.group === "a"), undefined, "a's rows are gone with its pods");
});

test("priority: a later group of a higher PriorityClass is queued, and started, before an earlier one", { skip }, async () => {
  await kubectl(["create", "priorityclass", "gang-high", "--value=1000"]);
  // b of the last test holds the cluster; d, waiting behind it, would head the queue.
  await stack.cluster.delete(POD, "three", "d-0");
  await createGroup("prio", "low", 2, 8);
  await gangRow("prio", "low", (r) => r.state === "reserved" || r.state === "pending");
  await createGroup("prio", "high", 2, 8, { priorityClassName: "gang-high" });
  const high = await gangRow("prio", "high", (r) => r.position === 1);
  assert.equal(high.state, "reserved");
  assert.ok(((await pods("prio")).find((p) => p.metadata.name === "high-0")?.spec.priority as number) === 1000, "the Priority admission resolved the class");
  assert.equal((await gangs("prio")).find((r) => r.group === "low")?.position, 2);
  // The cluster frees up: high goes first; low waits for it.
  for (let i = 0; i < 4; i += 1) await stack.cluster.delete(POD, "three", `b-${i}`);
  await allBound("prio", "high", 2);
  assert.deepEqual(await boundOf("prio", "low"), []);
});

test("GET /v1/gangs shows a caller only the namespaces where it may list pods; no token, or one the API server does not know: 401", { skip }, async () => {
  const get = (query: string, token?: string): Promise<Response> => fetch(`${stack.apiUrl}/v1/gangs${query}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await get("")).status, 401);
  assert.equal((await get("", "not-a-token")).status, 401);
  // A provisional group in readers beside prio's running ones.
  await stack.cluster.create(member("readers", "seen-0", "seen", 2, 1));
  await gangRow("readers", "seen", (r) => r.state === "provisional");
  const all = GangList.parse(await (await get("", reader)).json()).items;
  assert.deepEqual([...new Set(all.map((r) => r.namespace))].sort(), ["prio", "readers"], "may list pods everywhere: every namespace's rows");
  if (stack.target === "cluster") {
    // The sim allows every user it authenticates; a real API server decides by RBAC.
    const scoped = await readerToken(stack, "readers-reader", ["readers"]);
    const seen = GangList.parse(await (await get("", scoped)).json()).items;
    assert.deepEqual([...new Set(seen.map((r) => r.namespace))], ["readers"], "a RoleBinding in readers only: readers' rows only");
    const forbidden = await get("?namespace=prio", scoped);
    assert.equal(forbidden.status, 403);
    assert.equal(((await forbidden.json()) as { error: { path: string } }).error.path, "query.namespace");
  }
  await stack.cluster.delete(POD, "readers", "seen-0");
});

test("a group whose members do not all arrive in time gets a Warning saying how many are missing", { skip }, async () => {
  await createGroup("partial", "p", 3, 1, { count: 2 });
  const row = await gangRow("partial", "p", (r) => r.state === "provisional" && r.present === 2);
  assert.deepEqual([row.present, row.size], [2, 3]);
  assert.match(row.waitingFor ?? "", /^1 more of 3 pods(; holds its place until \S+)?$/);
  const warned = await waitFor("GangIncomplete on both pods (those recorded)", () => events("partial", "GangIncomplete"), (found) => found.length === 2, { timeoutMs: WAIT_MS });
  assert.match(warned[0]?.message, new RegExp(`^2 of 3 pods of group partial/p arrived after [${ARRIVAL_TIMEOUT_SECONDS}-9]s; waiting for 1 more$`));
});

test("the queue survives a Worker and a relay restart mid-queue: nothing rebuilt twice, nothing bound twice", { skip }, async () => {
  // high (prio) holds the cluster: r waits for it; q is provisional.
  await createGroup("restart", "r", 2, 8);
  await createGroup("restart", "q", 2, 1, { count: 1 });
  await gangRow("restart", "r", (r) => r.state === "reserved" || r.state === "pending");
  await gangRow("restart", "q", (r) => r.state === "provisional");
  const table = await gangsCli(["--namespace", "restart"]);
  assert.match(table, /^NAMESPACE\s+GROUP\s+STATE\s+PODS\s+POSITION\s+ETA\s+NODES\s+DEADLINE\s+WAITING-FOR\n/);
  assert.match(table, /restart\s+q\s+provisional\s+1\/2\s/);
  const before = await gangs("restart");
  await stack.worker.restart();
  assert.deepEqual(strip(await gangs("restart")), strip(before), "the Worker's restart lost nothing");
  await stack.restartRelay();
  // The new relay replays its whole list; wait until the queue has seen it, then compare.
  await gangRow("restart", "r", (r) => r.state === "reserved" || r.state === "pending");
  assert.deepEqual(strip(await gangs("restart")), strip(before), "the replayed list rebuilt nothing twice");
  // The queue moves on after both restarts: the groups of prio go, r starts; q completes, and waits for room.
  for (const name of ["high-0", "high-1", "low-0", "low-1"]) await stack.cluster.delete(POD, "prio", name);
  await allBound("restart", "r", 2);
  await stack.cluster.create(member("restart", "q-1", "q", 2, 1));
  await waitFor("q complete, waiting for r (q's row)", async () => (await gangs("restart")).find((r) => r.group === "q"), (q) => q?.state !== "provisional", { timeoutMs: WAIT_MS });
  // Every fluxnetes pod of every namespace was bound at most once, by us alone.
  const scheduled = ((await stack.cluster.list(EVENT, {})).items as Obj[]).filter((e) => e.reason === "Scheduled");
  const perPod = new Map<string, Obj[]>();
  for (const event of scheduled) perPod.set(`${event.involvedObject.namespace}/${event.involvedObject.name}`, [...(perPod.get(`${event.involvedObject.namespace}/${event.involvedObject.name}`) ?? []), event]);
  for (const [pod, list] of perPod) {
    assert.equal(list.length, 1, `${pod} was bound once`);
    assert.match(list[0]?.message, /\(gang /, `${pod} was bound by the gang scheduler, not the default scheduler`);
    assert.equal(list[0]?.reportingComponent, RELAY_COMPONENT, `${pod}'s Scheduled Event is the relay's, not kube-scheduler's`);
  }
  assert.ok(perPod.has("restart/r-0") && perPod.has("restart/r-1"));
  if (stack.controlPlane) {
    // A pod is bound once: the relay's Binding accepted (201) means no one, kube-scheduler included, bound it before us.
    const { auditLogPath } = stack.controlPlane;
    const relayUser = stack.installed?.user;
    assert.ok(relayUser, "on a real control plane the relay runs as its ServiceAccount");
    const accepted = await waitFor("every binding in the audit log (the pods missing)", () => bindingsBy(auditLogPath, relayUser), (found) => [...perPod.keys()].every((pod) => found.has(pod)), {
      timeoutMs: WAIT_MS,
      describe: (found) => [...perPod.keys()].filter((pod) => !found.has(pod)).join(", "),
    });
    for (const pod of perPod.keys()) assert.deepEqual(accepted.get(pod), [201], `${pod}: the relay's ServiceAccount bound it, once`);
  }
});

/** The response codes of the Binding creates of `user` in the audit log, by `namespace/pod`. */
function bindingsBy(auditLogPath: string, user: string): Map<string, number[]> {
  const found = new Map<string, number[]>();
  // Whole lines only: the last one may be still being written.
  for (const line of readFileSync(auditLogPath, "utf8").split("\n").slice(0, -1)) {
    if (!line.includes('"binding"')) continue;
    const event = JSON.parse(line) as { verb?: string; user?: { username?: string }; objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string }; responseStatus?: { code?: number } };
    const ref = event.objectRef;
    if (event.verb !== "create" || event.user?.username !== user || ref?.resource !== "pods" || ref.subresource !== "binding") continue;
    const key = `${ref.namespace ?? ""}/${ref.name ?? ""}`;
    found.set(key, [...(found.get(key) ?? []), event.responseStatus?.code ?? 0]);
  }
  return found;
}

/** Rows without their clock-dependent fields. */
function strip(rows: readonly GangRow[]): unknown[] {
  return rows.map((row) => ({ ...row, reservedStart: row.reservedStart === null ? null : "set", waitingFor: null, reason: row.reason?.kind ?? null }));
}

/** Runs `npm run gangs` (scripts/gangs.ts on this Node) against the stack's API. */
function gangsCli(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(import.meta.dirname, "../../scripts/gangs.ts"), "--url", stack.apiUrl, "--token", reader, ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`gangs ${args.join(" ")} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

test("a fluxnetes.group-size that is not a whole number from 1 to 10000 is refused, naming the label: FailedScheduling, PodScheduled False, never bound; fixed, the pod is bound", { skip }, async () => {
  // No requests: they fit beside the groups that hold the nodes.
  for (const [name, size] of [["huge-0", "1000000"], ["word-0", "three"]] as const) {
    const pod = member("sizes", name, name.slice(0, -2), 1, 0) as Obj;
    pod.metadata.labels["fluxnetes.group-size"] = size;
    await stack.cluster.create(pod as KubeObject);
  }
  const refused = await waitFor("a FailedScheduling Warning on both pods (those recorded)", () => events("sizes", "FailedScheduling"), (found) => found.length === 2, { timeoutMs: WAIT_MS });
  assert.deepEqual(refused.map((e) => e.message).sort(), [
    'pod sizes/huge-0 refused: metadata.labels["fluxnetes.group-size"] is "1000000": a group size is a whole number from 1 to 10000',
    'pod sizes/word-0 refused: metadata.labels["fluxnetes.group-size"] is "three": a group size is a whole number from 1 to 10000',
  ]);
  const unschedulable = (p: Obj): boolean => p.status?.conditions?.some((c: Obj) => c.type === "PodScheduled" && c.status === "False" && /refused/.test(c.message)) === true;
  await waitFor("both pods PodScheduled False (those marked)", () => pods("sizes"), (listed) => listed.filter(unschedulable).length === 2, { timeoutMs: WAIT_MS, describe: describePods });
  assert.deepEqual(await boundOf("sizes", "huge"), [], "not a group of 10000, nor of 1");
  const row = (await gangs("sizes")).find((r) => r.group === "huge");
  assert.deepEqual([row?.state, row?.size], ["rejected", 0]);
  // Labels are mutable: fixed, the pod is a group of one and is bound.
  await kubectl(["label", "pod", "huge-0", "-n", "sizes", "--overwrite", "fluxnetes.group-size=1"]);
  await allBound("sizes", "huge", 1);
  assert.deepEqual(await boundOf("sizes", "word"), []);
});
