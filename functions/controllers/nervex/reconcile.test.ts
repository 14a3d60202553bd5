import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { isDns1035Label } from "../../../protocol/kube/names.ts";
import type { Decision } from "../../kit/controller.ts";
import type { KubeObject, ReconcileRequest, Trigger } from "../../../protocol/index.ts";
import { FakeCluster, actionsOf, deletedTrigger, parseManifests, type Applied } from "../../kit/testing/index.ts";
import controller from "./controller.ts";
import { coordinatorName, replicaName } from "./names.ts";
import { reconcileNerveXJob } from "./reconcile.ts";
import { replicaObjects } from "./replica-pod.ts";
import { NerveXJob } from "./schema.ts";
import type { ReplicaType } from "./labels.ts";

const NAME = "nervexjob-example";
const COORDINATOR = `${NAME}-coordinator`;
const T0 = "2026-11-22T12:00:00.000Z";
const T1 = "2026-11-22T12:00:01.000Z";
const T2 = "2026-11-22T12:00:02.000Z";
const T3 = "2026-11-22T12:00:03.000Z";
const LATER = "2026-11-22T12:05:00.000Z";
const settings = { apiAddress: "edgeloop-relay.edgeloop-system:8080" };

function fixture(file: string): KubeObject {
  return parseManifests(readFileSync(new URL(`fixtures/${file}`, import.meta.url), "utf8"))[0] as KubeObject;
}

/** A cluster with an upstream fixture job (no namespace in it: default), its spec edited. */
function setup(options: { file?: string; name?: string; edit?: (spec: Record<string, unknown>) => void } = {}): { cluster: FakeCluster; job: KubeObject } {
  const cluster = new FakeCluster();
  const manifest = structuredClone(fixture(options.file ?? "nervex-mock-nervexjob.yaml"));
  manifest.metadata.name = options.name ?? NAME;
  options.edit?.(manifest["spec"] as Record<string, unknown>);
  return { cluster, job: cluster.add(manifest) };
}

function request(cluster: FakeCluster, now: string, triggers: Trigger[] = [], name = NAME): ReconcileRequest {
  return cluster.request(controller, { name, triggers, now });
}

function reconcile(cluster: FakeCluster, now: string, triggers: Trigger[] = [], name = NAME): { decision: Decision; result: Applied } {
  const decision = reconcileNerveXJob(request(cluster, now, triggers, name), settings);
  return { decision, result: cluster.apply(decision, now) };
}

/** Reconciles until nothing is left to decide (at most a few rounds), as the relay's requeues would. */
function settle(cluster: FakeCluster, now: string, name = NAME): void {
  for (let i = 0; i < 4; i += 1) if (reconcile(cluster, now, [], name).decision.actions.length === 0) return;
  assert.fail("the job does not settle");
}

function setPhase(cluster: FakeCluster, name: string, phase: string, extra: Record<string, unknown> = {}): KubeObject {
  const current = cluster.get("Pod", name);
  assert.ok(current, name);
  return cluster.update({ ...current, status: { phase, ...extra } });
}

function status(cluster: FakeCluster, name = NAME): Record<string, unknown> {
  return (cluster.get("NerveXJob", name)?.["status"] ?? {}) as Record<string, unknown>;
}

/** Adds a replica of the job as the replicas API would (owned by the job). */
function addReplica(cluster: FakeCluster, type: ReplicaType, suffix: string, phase?: string): string {
  const job = NerveXJob.parse(cluster.get("NerveXJob", NAME));
  const name = replicaName(NAME, type, suffix);
  const { pod, service } = replicaObjects({ job, type, name, template: job.spec.coordinator.template, settings });
  cluster.add(pod);
  cluster.add(service);
  if (phase) setPhase(cluster, name, phase);
  return name;
}

function env(pod: KubeObject | undefined): Record<string, string> {
  const spec = pod?.["spec"] as { containers: { env: { name: string; value: string }[] }[] };
  return Object.fromEntries((spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
}

function reasons(cluster: FakeCluster): string[] {
  return cluster.events.map((e) => e.reason);
}

test("a new job gets its coordinator pod and headless Service, phase Created, and then nothing more", () => {
  const { cluster, job } = setup();
  const { decision, result } = reconcile(cluster, T0);
  assert.deepEqual(result.errors, []);
  const pod = cluster.get("Pod", COORDINATOR);
  const service = cluster.get("Service", COORDINATOR);
  assert.ok(pod && service);
  assert.deepEqual(pod.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]), [["NerveXJob", NAME, job.metadata.uid, true, true]]);
  assert.deepEqual(pod.metadata.labels, {
    "group-name": "nervex.sensetime.com",
    "nervexjob-name": NAME,
    "controller-name": "nervex-operator",
    "replica-type": "coordinator",
    "pod-name": COORDINATOR,
  });
  const spec = pod["spec"] as { restartPolicy: string; containers: { ports: unknown[] }[] };
  assert.equal(spec.restartPolicy, "Never");
  assert.deepEqual(spec.containers[0]?.ports, [{ name: "nervex-port", containerPort: 22273, protocol: "TCP" }]);
  assert.deepEqual(env(pod), {
    COORDINATOR_PORT: "22273",
    KUBERNETES_POD_NAMESPACE: "default",
    KUBERNETES_POD_NAME: COORDINATOR,
    KUBERNETES_SERVER_URL: "edgeloop-relay.edgeloop-system:8080",
    KUBERNETES_COORDINATOR_URL: `${COORDINATOR}.default:22273`,
  });
  assert.deepEqual(service["spec"], { clusterIP: "None", selector: pod.metadata.labels, ports: [{ name: "nervex-port", protocol: "TCP", port: 22273, targetPort: 22273 }] });
  assert.equal(status(cluster)["phase"], "Created");
  assert.deepEqual(reasons(cluster), ["SuccessfulCreate", "SuccessfulCreate", "NerveXJobCreated"]);
  assert.deepEqual(cluster.events.map((e) => e.message).slice(0, 2), [`Created pod: ${COORDINATOR}`, `Created service: ${COORDINATOR}`]);
  assert.equal(decision.requeueAfterSeconds, undefined);
  // The next reconcile records the coordinator's uid; then there is nothing left to do.
  const second = reconcile(cluster, T1).decision;
  assert.deepEqual(second.actions.map((a) => a.type), ["status"]);
  assert.equal(status(cluster)["coordinatorUid"], pod.metadata.uid);
  assert.deepEqual(reconcile(cluster, T2).decision.actions, []);
});

test("priorityClassName and the job's volumes reach the coordinator; a missing Service alone is created again", () => {
  const { cluster } = setup({ file: "nervex_v1alpha1_nervexjob.yaml", edit: (spec) => (spec["priorityClassName"] = "high") });
  settle(cluster, T0);
  const spec = cluster.get("Pod", COORDINATOR)?.["spec"] as { priorityClassName: string; volumes: { name: string }[]; containers: { ports: unknown[] }[] };
  assert.equal(spec.priorityClassName, "high");
  assert.deepEqual(spec.volumes.map((v) => v.name), ["data-dir", "cache-volume"]);
  // The fixture declares its own nervex-port.
  assert.deepEqual(spec.containers[0]?.ports, [{ name: "nervex-port", containerPort: 22270 }]);
  assert.equal(env(cluster.get("Pod", COORDINATOR))["KUBERNETES_COORDINATOR_URL"], `${COORDINATOR}.default:22270`);
  cluster.remove("Service", COORDINATOR);
  const { decision } = reconcile(cluster, T1);
  assert.deepEqual(actionsOf(decision, "create").map((a) => a.object.kind), ["Service"]);
  assert.ok(cluster.get("Service", COORDINATOR));
});

test("the phase follows the coordinator alone, with one condition per phase", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  const collector = addReplica(cluster, "collector", "aaaaa", "Running");
  setPhase(cluster, COORDINATOR, "Running");
  reconcile(cluster, T1);
  assert.equal(status(cluster)["phase"], "Running");
  // A collector's and a learner's failure do not change the phase.
  setPhase(cluster, collector, "Failed");
  addReplica(cluster, "learner", "bbbbb", "Failed");
  reconcile(cluster, T2);
  assert.equal(status(cluster)["phase"], "Running");
  setPhase(cluster, COORDINATOR, "Succeeded");
  reconcile(cluster, T3);
  assert.equal(status(cluster)["phase"], "Succeeded");
  assert.deepEqual(reasons(cluster).filter((r) => r.startsWith("NerveXJob")), ["NerveXJobCreated", "NerveXJobRunning", "NerveXJobSucceeded"]);
  const conditions = status(cluster)["conditions"] as Record<string, string>[];
  assert.deepEqual(conditions.map((c) => [c.type, c.status, c.reason]), [
    ["Created", "False", "NerveXJobSucceeded"],
    ["Running", "False", "NerveXJobSucceeded"],
    ["Succeeded", "True", "NerveXJobSucceeded"],
  ]);
  const created = conditions[0];
  assert.equal(created?.["lastUpdateTime"], T3);
  // Created turned False when Running came (T1), and stayed False since.
  assert.equal(created?.["lastTransitionTime"], T1);
  assert.equal(conditions[1]?.["lastTransitionTime"], T3);
  assert.equal(conditions[2]?.["lastTransitionTime"], T3);
});

test("a failed coordinator fails the job, with a Warning", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  setPhase(cluster, COORDINATOR, "Failed");
  reconcile(cluster, T1);
  assert.equal(status(cluster)["phase"], "Failed");
  const event = cluster.events.find((e) => e.reason === "NerveXJobFailed");
  assert.equal(event?.eventType, "Warning");
  assert.equal(event?.message, `NerveXJob ${NAME} failed because coordinator ${COORDINATOR} failed`);
});

test("a coordinator whose nervex-container ended while a sidecar runs ends the job", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  setPhase(cluster, COORDINATOR, "Running", {
    containerStatuses: [
      { name: "sidecar", state: { running: {} } },
      { name: "nervex-container", state: { terminated: { exitCode: 0, reason: "Completed" } } },
    ],
  });
  reconcile(cluster, T1);
  assert.equal(status(cluster)["phase"], "Succeeded");
  assert.deepEqual((status(cluster)["replicaStatus"] as Record<string, unknown>)["Coordinator"], { active: 0, succeeded: 1, failed: 0 });
});

test("replicaStatus counts each type's pods by the replica-type label, terminating ones left out", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  setPhase(cluster, COORDINATOR, "Running");
  addReplica(cluster, "collector", "a", "Running");
  addReplica(cluster, "collector", "b");
  addReplica(cluster, "collector", "c", "Failed");
  addReplica(cluster, "learner", "d", "Succeeded");
  addReplica(cluster, "aggregator", "e", "Running");
  const gone = addReplica(cluster, "learner", "f", "Running");
  cluster.markDeleting("Pod", gone, T1);
  reconcile(cluster, T1);
  assert.deepEqual(status(cluster)["replicaStatus"], {
    Coordinator: { active: 1, succeeded: 0, failed: 0 },
    Collector: { active: 2, succeeded: 0, failed: 1 },
    Learner: { active: 0, succeeded: 1, failed: 0 },
    Aggregator: { active: 1, succeeded: 0, failed: 0 },
  });
});

test("conditions a status grew with duplicates collapse to one per type", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  const job = cluster.get("NerveXJob", NAME);
  assert.ok(job);
  const duplicate = { type: "Created", status: "True", reason: "NerveXJobCreated", message: "old", lastUpdateTime: T0, lastTransitionTime: T0 };
  cluster.update({ ...job, status: { ...status(cluster), conditions: [duplicate, duplicate] } });
  setPhase(cluster, COORDINATOR, "Running");
  reconcile(cluster, T1);
  const conditions = status(cluster)["conditions"] as { type: string }[];
  assert.deepEqual(conditions.map((c) => c.type), ["Created", "Running"]);
});

/** A finished job with a running collector, a succeeded learner and their Services. */
function finishedJob(policy: string | undefined): { cluster: FakeCluster; collector: string; learner: string } {
  const { cluster } = setup({ edit: (spec) => (policy === undefined ? delete spec["cleanPodPolicy"] : (spec["cleanPodPolicy"] = policy)) });
  settle(cluster, T0);
  const collector = addReplica(cluster, "collector", "a", "Running");
  const learner = addReplica(cluster, "learner", "b", "Succeeded");
  setPhase(cluster, COORDINATOR, "Running");
  reconcile(cluster, T1);
  setPhase(cluster, COORDINATOR, "Succeeded");
  return { cluster, collector, learner };
}

for (const [policy, kept] of [
  ["Running", (c: string, l: string): string[] => [COORDINATOR, l].sort()],
  [undefined, (c: string, l: string): string[] => [COORDINATOR, l].sort()],
  // Stored before the webhook existed (the CRD takes any string, as upstream's): the default.
  ["Sometimes", (c: string, l: string): string[] => [COORDINATOR, l].sort()],
  ["ALL", (): string[] => []],
  ["None", (c: string, l: string): string[] => [COORDINATOR, c, l].sort()],
] as const) {
  test(`cleanPodPolicy ${policy ?? "unset (Running)"}: every Service goes, and the pods the policy names; then nothing more`, () => {
    const { cluster, collector, learner } = finishedJob(policy);
    const { decision, result } = reconcile(cluster, T2);
    assert.deepEqual(result.errors, []);
    // The status is written before anything is deleted.
    assert.equal(decision.actions[0]?.type, "status");
    assert.equal(status(cluster)["phase"], "Succeeded");
    assert.deepEqual(cluster.list("Service"), []);
    assert.deepEqual(cluster.list("Pod").map((p) => p.metadata.name).sort(), kept(collector, learner));
    const deletes = actionsOf(decision, "delete");
    assert.ok(deletes.every((d) => d.preconditions?.uid));
    assert.equal(cluster.events.filter((e) => e.reason === "SuccessfulDelete").length, deletes.length);
    // The next look only records the counts the cleanup changed; then nothing at all.
    assert.deepEqual(reconcile(cluster, T3).decision.actions.filter((a) => a.type !== "status"), []);
    assert.deepEqual(reconcile(cluster, LATER).decision.actions, []);
    // The Coordinator's success is still counted after cleanup deleted it.
    assert.equal((status(cluster)["replicaStatus"] as Record<string, { succeeded: number }>)["Coordinator"]?.succeeded, 1);
  });
}

test("cleanup leaves alone what is already being deleted", () => {
  const { cluster, collector, learner } = finishedJob("Running");
  cluster.markDeleting("Pod", collector, T2);
  cluster.markDeleting("Service", COORDINATOR, T2);
  const { decision } = reconcile(cluster, T2);
  // A replica's Service has its pod's name.
  const deleted = actionsOf(decision, "delete").map((d) => `${d.target.kind}/${d.target.name}`);
  assert.deepEqual(deleted.sort(), [`Service/${collector}`, `Service/${learner}`]);
});

test("a deleted coordinator of a running job is recreated once, under a claim on its uid", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  setPhase(cluster, COORDINATOR, "Running");
  reconcile(cluster, T1);
  const last = cluster.remove("Pod", COORDINATOR);
  const trigger = deletedTrigger(last);
  const { decision, result } = reconcile(cluster, T2, [trigger]);
  const creates = actionsOf(decision, "create");
  assert.deepEqual(creates.map((c) => c.object.metadata.name), [COORDINATOR]);
  assert.ok(creates[0]?.claim?.key.includes(last.metadata.uid ?? "?"));
  const recreated = actionsOf(decision, "event").find((e) => e.reason === "Recreated");
  assert.ok(recreated?.claim && recreated.message.includes(COORDINATOR));
  assert.equal(decision.requeueAfterSeconds, 6);
  assert.deepEqual(result.errors, []);
  const replacement = cluster.get("Pod", COORDINATOR);
  assert.ok(replacement && replacement.metadata.uid !== last.metadata.uid);
  assert.equal(status(cluster)["phase"], "Running");
  // The same deletion delivered again, and a cache that does not show the replacement yet: the claim holds.
  cluster.remove("Pod", COORDINATOR);
  const again = reconcile(cluster, T3, [trigger]);
  assert.equal(again.result.dropped.filter((a) => a.type === "create").length, 1);
  assert.equal(cluster.get("Pod", COORDINATOR), undefined);
  assert.equal(cluster.events.filter((e) => e.reason === "Recreated").length, 1);
});

test("a coordinator gone unseen while the job runs is recreated as a replacement of the recorded uid", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  setPhase(cluster, COORDINATOR, "Running");
  reconcile(cluster, T1);
  const uid = cluster.get("Pod", COORDINATOR)?.metadata.uid;
  assert.equal(status(cluster)["coordinatorUid"], uid);
  cluster.remove("Pod", COORDINATOR);
  const { decision } = reconcile(cluster, T2);
  const create = actionsOf(decision, "create")[0];
  assert.equal(create?.object.metadata.name, COORDINATOR);
  assert.ok(uid && create.claim?.key.endsWith(`/Pod/${uid}`));
  assert.match(actionsOf(decision, "event").find((e) => e.reason === "Recreated")?.message ?? "", /is gone/);
});

test("a coordinator deleted after it succeeded ends the job instead of being recreated", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  setPhase(cluster, COORDINATOR, "Running");
  reconcile(cluster, T1);
  setPhase(cluster, COORDINATOR, "Succeeded");
  const last = cluster.remove("Pod", COORDINATOR);
  const { decision } = reconcile(cluster, T2, [deletedTrigger(last)]);
  assert.deepEqual(actionsOf(decision, "create"), []);
  assert.equal(status(cluster)["phase"], "Succeeded");
});

test("a finished job whose coordinator is gone creates nothing", () => {
  const { cluster } = finishedJob("ALL");
  reconcile(cluster, T2);
  assert.equal(cluster.get("Pod", COORDINATOR), undefined);
  assert.deepEqual(actionsOf(reconcile(cluster, T3).decision, "create"), []);
  assert.deepEqual(reconcile(cluster, LATER).decision.actions, []);
});

test("a terminating coordinator is waited for, not replaced", () => {
  const { cluster } = setup();
  settle(cluster, T0);
  cluster.markDeleting("Pod", COORDINATOR, T1);
  const { decision } = reconcile(cluster, T1);
  assert.deepEqual(actionsOf(decision, "create"), []);
  assert.equal(decision.requeueAfterSeconds, 2);
});

test("a job being deleted, or gone, decides nothing", () => {
  const { cluster } = setup();
  cluster.markDeleting("NerveXJob", NAME, T0);
  assert.deepEqual(reconcile(cluster, T0).decision.actions, []);
  assert.deepEqual(reconcileNerveXJob(request(new FakeCluster(), T0), settings).actions, []);
});

test("a 253-character dotted job name yields a bounded DNS-1035 coordinator and Service", () => {
  const name = `${"a".repeat(62)}.${"b".repeat(62)}.${"c".repeat(62)}.${"d".repeat(62)}.e`;
  assert.equal(name.length, 253);
  const { cluster } = setup({ name });
  reconcile(cluster, T0, [], name);
  const pods = cluster.list("Pod");
  assert.equal(pods.length, 1);
  const podName = pods[0]?.metadata.name ?? "";
  assert.equal(podName, coordinatorName(name));
  assert.ok(isDns1035Label(podName).length === 0 && podName.length <= 63);
  assert.equal(cluster.list("Service")[0]?.metadata.name, podName);
  assert.equal(env(pods[0])["KUBERNETES_COORDINATOR_URL"], `${podName}.default:22273`);
  assert.ok(Object.values(pods[0]?.metadata.labels ?? {}).every((v) => v.length <= 63));
});
