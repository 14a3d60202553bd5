import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { isDns1035Label, isDns1123Label, isValidLabelValue } from "../../../../protocol/kube/names.ts";
import type { Decision } from "../../../kit/controller.ts";
import type { KubeObject, ReconcileRequest, Trigger } from "../../../../protocol/index.ts";
import { SPEC_HASH_LABEL, WORKER_SLOT_LABEL } from "../../../kit/labels.ts";
import { FakeCluster, actionsOf, deletedTrigger, parseManifests, type Applied } from "../../../kit/testing/index.ts";
import controller from "./controller.ts";
import { reconcileFederatedLearning } from "./reconcile.ts";

const NAME = "surface-defect-detection";
const T0 = "2026-11-22T12:00:00.000Z";
const T1 = "2026-11-22T12:00:01.000Z";
const T2 = "2026-11-22T12:00:02.000Z";
const T3 = "2026-11-22T12:00:03.000Z";
const LATER = "2026-11-22T12:05:00.000Z";

const fixture = parseManifests(readFileSync(new URL("../../sedna/fixtures/federatedlearningjob_v1alpha1.yaml", import.meta.url), "utf8"))[0] as KubeObject;

function sedna(kind: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: "sedna.io/v1alpha1", kind, metadata: { name, namespace: "default" }, spec } as KubeObject;
}

/** A cluster with the upstream fixture job (no namespace in it: default) and its Model and Datasets. */
function setup(name = NAME): { cluster: FakeCluster; job: KubeObject } {
  const cluster = new FakeCluster();
  cluster.add(sedna("Model", "surface-defect-detection-model", { url: "/model", format: "pb" }));
  cluster.add(sedna("Dataset", "edge1-surface-defect-detection-dataset", { url: "/data/1.txt", format: "txt", nodeName: "edge1" }));
  cluster.add(sedna("Dataset", "edge2-surface-defect-detection-dataset", { url: "s3://bucket/data/2.txt", format: "txt", nodeName: "edge2", credentialName: "s3" }));
  const manifest = structuredClone(fixture);
  manifest.metadata.name = name;
  const job = cluster.add(manifest);
  return { cluster, job };
}

function request(cluster: FakeCluster, now: string, triggers: Trigger[] = [], name = NAME): ReconcileRequest {
  return cluster.request(controller, { name, triggers, now });
}

function reconcile(cluster: FakeCluster, now: string, triggers: Trigger[] = [], name = NAME): { decision: Decision; result: Applied } {
  const decision = reconcileFederatedLearning(request(cluster, now, triggers, name));
  return { decision, result: cluster.apply(decision, now) };
}

function pods(cluster: FakeCluster, slot?: string): KubeObject[] {
  return cluster.list("Pod").filter((p) => slot === undefined || p.metadata.labels?.[WORKER_SLOT_LABEL] === slot);
}

function env(pod: KubeObject | undefined): Record<string, string> {
  const spec = pod?.["spec"] as { containers: { env: { name: string; value: string }[] }[] };
  return Object.fromEntries((spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
}

function setPhase(cluster: FakeCluster, pod: KubeObject, phase: string): KubeObject {
  const current = cluster.get("Pod", pod.metadata.name ?? "");
  assert.ok(current);
  return cluster.update({ ...current, status: { phase } });
}

function status(cluster: FakeCluster, name = NAME): Record<string, unknown> {
  return (cluster.get("FederatedLearningJob", name)?.["status"] ?? {}) as Record<string, unknown>;
}

/** Makes every pod (of one slot, or all) report `phase`, as the kubelet would. */
function setPhases(cluster: FakeCluster, phase: string, slot?: string): void {
  for (const pod of pods(cluster, slot)) setPhase(cluster, pod, phase);
}

/** Creates the pods, lets them run, then lets the job see them (phase Running). */
function running(): { cluster: FakeCluster; job: KubeObject } {
  const made = setup();
  reconcile(made.cluster, T0);
  setPhases(made.cluster, "Running");
  reconcile(made.cluster, T0);
  assert.equal(status(made.cluster)["phase"], "Running");
  return made;
}


/** Changes the job's spec (a new env var on the first training worker): a new spec hash, so a roll. */
function changeSpec(cluster: FakeCluster): void {
  const job = cluster.get("FederatedLearningJob", NAME);
  assert.ok(job);
  const spec = structuredClone(job["spec"]) as { trainingWorkers: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } }[] };
  spec.trainingWorkers[0]?.template.spec.containers[0]?.env.push({ name: "extra", value: "1" });
  cluster.update({ ...job, spec });
}

test("creates the aggregation pod and Service and one training pod per worker, owned by the live job", () => {
  const { cluster, job } = setup();
  const { result } = reconcile(cluster, T0);
  assert.deepEqual(result.errors, []);
  assert.equal(pods(cluster).length, 3);
  const [agg] = pods(cluster, "aggregation");
  assert.match(agg?.metadata.name ?? "", new RegExp(`^${NAME}-aggregation-[0-9a-z]{5}$`));
  const service = cluster.get("Service", `${NAME}-aggregation`);
  assert.deepEqual((service?.["spec"] as { ports: { port: number }[] }).ports.map((p) => p.port), [7363]);
  for (const child of [...pods(cluster), service]) {
    assert.deepEqual(child?.metadata.ownerReferences, [
      { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", name: NAME, uid: job.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(child?.metadata.labels?.["federatedlearningjob.sedna.io/uid"], job.metadata.uid);
  }
  const aggEnv = env(agg);
  assert.equal(aggEnv["AGG_BIND_PORT"], "7363");
  assert.equal(aggEnv["PARTICIPANTS_COUNT"], "2");
  assert.equal(aggEnv["TRANSMITTER"], "ws");
  assert.equal(aggEnv["MODEL_URL"], "/home/data/model");
  assert.equal(aggEnv["JOB_NAME"], NAME);
  assert.equal(aggEnv["NAMESPACE"], "default");
  assert.equal(aggEnv["WORKER_NAME"], agg?.metadata.name);
  assert.equal(aggEnv["exit_round"], "3", "the user's env vars are kept");
  assert.equal(aggEnv["DATA_PATH_PREFIX"], "/home/data", "the model is a host path");
  assert.equal((agg?.["spec"] as { restartPolicy: string }).restartPolicy, "OnFailure");
  for (const [slot, dataset, url] of [
    ["train-0", "edge1-surface-defect-detection-dataset", "/home/data/data/1.txt"],
    ["train-1", "edge2-surface-defect-detection-dataset", "/downloads/bucket/data/2.txt"],
  ] as const) {
    const [pod] = pods(cluster, slot);
    assert.match(pod?.metadata.name ?? "", new RegExp(`^${NAME}-train-[0-9a-z]{5}$`));
    const spec = pod?.["spec"] as { hostNetwork: boolean; restartPolicy: string; nodeName: string };
    assert.equal(spec.hostNetwork, true);
    assert.equal(spec.restartPolicy, "OnFailure");
    const e = env(pod);
    assert.equal(e["AGG_IP"], `${NAME}-aggregation.default`);
    assert.equal(e["AGG_PORT"], "7363");
    assert.equal(e["MODEL_NAME"], "surface-defect-detection-model");
    assert.equal(e["DATASET_NAME"], dataset);
    assert.equal(e["TRAIN_DATASET_URL"], url);
    assert.equal(e["LC_SERVER"], "http://localhost:9100");
    assert.equal(e["batch_size"], "32");
    // Upstream sets these on every training worker too.
    assert.equal(e["PARTICIPANTS_COUNT"], "2");
    assert.equal(e["TRANSMITTER"], "ws");
    assert.equal(e["MODEL_URL"], "/home/data/model");
    assert.equal(e["JOB_NAME"], NAME);
    assert.equal(e["NAMESPACE"], "default");
    assert.equal(e["WORKER_NAME"], pod?.metadata.name);
    assert.equal(e["DATA_PATH_PREFIX"], "/home/data");
  }
  assert.equal(status(cluster)["phase"], "Pending");
  assert.equal(status(cluster)["startTime"], T0);
  assert.equal(status(cluster)["active"], 0, "nothing observed yet: the pods are only being created");
});

test("replaying the same snapshot once the pods run creates nothing; the job turns Running once", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  setPhases(cluster, "Running");
  const second = reconcile(cluster, T1);
  assert.deepEqual(actionsOf(second.decision, "create"), []);
  assert.equal(status(cluster)["phase"], "Running");
  assert.equal(status(cluster)["active"], 3);
  const conditions = status(cluster)["conditions"] as { type: string; status: string }[];
  assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}`), ["Training=True"]);
  assert.deepEqual(reconcile(cluster, T2).decision, { actions: [] });
  assert.deepEqual(reconcile(cluster, T3).decision, { actions: [] });
});

test("self-healing: a deleted training pod is replaced once, under a new name, even when the deletion is replayed", () => {
  const { cluster, job } = running();
  const [victim] = pods(cluster, "train-1");
  assert.ok(victim);
  const gone = cluster.remove("Pod", victim.metadata.name ?? "");
  const first = reconcile(cluster, T1, [deletedTrigger(gone)]);
  const [create] = actionsOf(first.decision, "create");
  assert.ok(create);
  assert.deepEqual(create.claim, { key: `${job.metadata.uid}/Pod/${gone.metadata.uid}`, ttlSeconds: 5 });
  assert.notEqual(create.object.metadata.name, gone.metadata.name);
  assert.equal(pods(cluster, "train-1").length, 1);
  // A replay of the same deletion, while the cache does not show the replacement yet.
  const replay = request(cluster, T2, [deletedTrigger(gone)]);
  replay.children["Pod.v1"] = (replay.children["Pod.v1"] ?? []).filter((p) => p.metadata.labels?.[WORKER_SLOT_LABEL] !== "train-1");
  const again = cluster.apply(reconcileFederatedLearning(replay), T2);
  assert.equal(again.dropped.filter((a) => a.type === "create").length, 1);
  assert.equal(pods(cluster, "train-1").length, 1, "one deletion, one replacement");
  assert.equal(pods(cluster).length, 3);
});

/** The job's `status.workerPods`, as `slot=pod` strings. */
function remembered(cluster: FakeCluster): string[] {
  const list = (status(cluster)["workerPods"] ?? []) as { slot: string; pod: string }[];
  return list.map((e) => `${e.slot}=${e.pod}`);
}

test("first create: the pods are Created, unclaimed, and the status remembers them only once observed", () => {
  const { cluster } = setup();
  const { decision } = reconcile(cluster, T0);
  const creates = actionsOf(decision, "create").filter((c) => c.object.kind === "Pod");
  assert.equal(creates.length, 3);
  assert.ok(actionsOf(decision, "create").every((c) => c.claim === undefined));
  assert.deepEqual(actionsOf(decision, "event").map((e) => e.reason), ["Created", "Created", "WorkersNotRunning"], "the pods, the Service, then the phase");
  assert.deepEqual(remembered(cluster), [], "a pod only planned is not remembered: a lagging cache must not read as a vanished pod");
  // The cache does not show the pods yet: the same creates again, not recreations.
  const lagging = request(cluster, T1);
  lagging.children["Pod.v1"] = [];
  const again = reconcileFederatedLearning(lagging);
  assert.deepEqual(actionsOf(again, "create").filter((c) => c.object.kind === "Pod").map((c) => [c.object.metadata.name, c.claim]), creates.map((c) => [c.object.metadata.name, undefined]));
  reconcile(cluster, T1);
  assert.deepEqual(remembered(cluster), ["aggregation", "train-0", "train-1"].map((slot) => `${slot}=${pods(cluster, slot)[0]?.metadata.name ?? ""}`));
});

test("relay restart: a pod gone unseen (no DELETED event) is Recreated once, claimed, naming it; replays create nothing", () => {
  const { cluster, job } = running();
  const [victim] = pods(cluster, "train-1");
  assert.ok(victim);
  // Deleted while no relay watched: the next snapshot simply lacks it, and no trigger tells.
  const gone = cluster.remove("Pod", victim.metadata.name ?? "");
  const first = reconcile(cluster, T1);
  const [create, ...more] = actionsOf(first.decision, "create");
  assert.ok(create);
  assert.deepEqual(more, []);
  assert.deepEqual(create.claim, { key: `${job.metadata.uid}/Pod/${gone.metadata.uid}`, ttlSeconds: 5 }, "the key a DELETED event would have claimed");
  assert.notEqual(create.object.metadata.name, gone.metadata.name);
  const reasons = actionsOf(first.decision, "event").map((e) => e.reason);
  assert.ok(reasons.includes("Recreated") && !reasons.includes("Created"), reasons.join());
  const event = actionsOf(first.decision, "event").find((e) => e.reason === "Recreated");
  assert.match(event?.message ?? "", new RegExp(`worker train-1 as pod ${create.object.metadata.name ?? ""} \\(pod ${gone.metadata.name ?? ""} is gone\\)`));
  const order = first.decision.actions;
  assert.equal(order[order.indexOf(create) + 1], event, "the Event right after its create");
  assert.equal(event?.ifPreviousApplied, true, "recorded only if the create is applied (a refused create recreated nothing)");
  assert.equal(first.decision.requeueAfterSeconds, 6, "looks again once the claim expired");
  // The same snapshot again, the replacement not in the cache yet: claimed, nothing more.
  const notYet = (now: string, triggers: Trigger[] = []): ReconcileRequest => {
    const replay = request(cluster, now, triggers);
    replay.children["Pod.v1"] = (replay.children["Pod.v1"] ?? []).filter((p) => p.metadata.labels?.[WORKER_SLOT_LABEL] !== "train-1");
    return replay;
  };
  const replay = cluster.apply(reconcileFederatedLearning(notYet(T2)), T2);
  assert.equal(replay.dropped.filter((a) => a.type === "create").length, 1);
  // The DELETED event arriving after all (a relay that did see it) shares the claim.
  const late = cluster.apply(reconcileFederatedLearning(notYet(T2, [deletedTrigger(gone)])), T2);
  assert.equal(late.dropped.filter((a) => a.type === "create").length, 1);
  assert.deepEqual(late.errors, []);
  assert.equal(pods(cluster, "train-1").length, 1, "one disappearance, one replacement");
  assert.equal(pods(cluster).length, 3);
  assert.equal(cluster.events.filter((e) => e.reason === "Recreated").length, 1);
  // Once observed, the replacement is what the slot remembers, and all is quiet.
  reconcile(cluster, T3);
  assert.ok(remembered(cluster).includes(`train-1=${create.object.metadata.name ?? ""}`));
  setPhases(cluster, "Running");
  reconcile(cluster, LATER);
  assert.deepEqual(reconcile(cluster, LATER).decision, { actions: [] });
});

test("a remembered pod without a uid is claimed by job, slot and name", () => {
  const { cluster, job } = running();
  const [victim] = pods(cluster, "train-0");
  assert.ok(victim);
  cluster.remove("Pod", victim.metadata.name ?? "");
  const current = cluster.get("FederatedLearningJob", NAME);
  assert.ok(current);
  const entries = (status(cluster)["workerPods"] as { slot: string; uid?: string }[]).map((e) => {
    if (e.slot !== "train-0") return e;
    const { uid: _uid, ...rest } = e;
    return rest;
  });
  cluster.update({ ...current, status: { ...status(cluster), workerPods: entries } });
  const [create] = actionsOf(reconcile(cluster, T1).decision, "create");
  assert.deepEqual(create?.claim?.key, `${job.metadata.uid}/Pod/train-0/${victim.metadata.name}`);
  assert.equal(pods(cluster, "train-0").length, 1);
});

test("relay restart: pods of an older spec gone unseen are replaced by a roll, not recreated", () => {
  const { cluster } = running();
  const old = pods(cluster);
  changeSpec(cluster);
  for (const pod of old) cluster.remove("Pod", pod.metadata.name ?? "");
  const { decision } = reconcile(cluster, T1);
  const creates = actionsOf(decision, "create");
  assert.equal(creates.length, 3);
  assert.ok(creates.every((c) => c.claim === undefined));
  assert.ok(!actionsOf(decision, "event").some((e) => e.reason === "Recreated"));
  assert.deepEqual(remembered(cluster), [], "what was remembered belonged to the older spec");
});

test("a finished job whose pod is gone unseen is left alone", () => {
  const { cluster } = running();
  setPhases(cluster, "Succeeded", "train-0");
  setPhases(cluster, "Succeeded", "train-1");
  reconcile(cluster, T1);
  assert.equal(status(cluster)["phase"], "Succeeded");
  const [agg] = pods(cluster, "aggregation");
  cluster.remove("Pod", agg?.metadata.name ?? "");
  const after = reconcile(cluster, T2);
  assert.deepEqual(after.decision.actions.map((a) => a.type), ["status"], "only the counts");
  assert.equal(pods(cluster).length, 2);
});

test("defect: graceful deletion — the replacement of a terminating pod gets a new name, and the later DELETE adds nothing", () => {
  const { cluster } = running();
  const [victim] = pods(cluster, "aggregation");
  assert.ok(victim);
  const terminating = cluster.markDeleting("Pod", victim.metadata.name ?? "", T1);
  const first = reconcile(cluster, T1, [{ type: "MODIFIED", kind: "Pod.v1", object: terminating }]);
  assert.deepEqual(first.result.errors, [], "no 409 AlreadyExists");
  assert.equal(pods(cluster, "aggregation").length, 2, "the terminating pod and its replacement");
  const gone = cluster.remove("Pod", victim.metadata.name ?? "");
  const second = reconcile(cluster, T2, [deletedTrigger(gone)]);
  assert.deepEqual(actionsOf(second.decision, "create").filter((c) => !second.result.dropped.includes(c)), []);
  assert.equal(pods(cluster, "aggregation").length, 1);
});

test("defect: preventRecreation was a global flag — a spec update replaces old-spec pods once and never resurrects them", () => {
  const { cluster } = running();
  const old = pods(cluster);
  changeSpec(cluster);
  const roll = reconcile(cluster, T1);
  assert.deepEqual(
    actionsOf(roll.decision, "delete").map((d) => [d.target.name, d.preconditions?.uid]).sort(),
    old.map((p) => [p.metadata.name, p.metadata.uid]).sort(),
    "every old pod is deleted, pinned to its uid",
  );
  assert.equal(actionsOf(roll.decision, "create").length, 3);
  const fresh = pods(cluster);
  assert.equal(fresh.length, 3);
  assert.equal(new Set(fresh.map((p) => p.metadata.labels?.[SPEC_HASH_LABEL])).size, 1);
  assert.notEqual(fresh[0]?.metadata.labels?.[SPEC_HASH_LABEL], old[0]?.metadata.labels?.[SPEC_HASH_LABEL]);
  assert.equal(status(cluster)["observedGeneration"], 2);
  // The old pods' DELETE events arrive late: nothing of the old spec comes back.
  const late = reconcile(cluster, T2, old.map((p) => deletedTrigger(p)));
  assert.deepEqual(actionsOf(late.decision, "create"), []);
  assert.deepEqual(pods(cluster).map((p) => p.metadata.name).sort(), fresh.map((p) => p.metadata.name).sort());
});

test("defect: deletionTimestamp bumps generation — a job being deleted is neither rolled nor healed", () => {
  const { cluster } = running();
  const [victim] = pods(cluster, "train-0");
  assert.ok(victim);
  const gone = cluster.remove("Pod", victim.metadata.name ?? "");
  const job = cluster.get("FederatedLearningJob", NAME);
  assert.ok(job);
  cluster.update({ ...job, metadata: { ...job.metadata, generation: 2, deletionTimestamp: T1, finalizers: ["foregroundDeletion"] } });
  assert.deepEqual(reconcile(cluster, T1, [deletedTrigger(gone)]).decision, { actions: [] });
});

test("defect: deleting a Succeeded pod re-ran training — a completed worker is never healed, even without the event", () => {
  const { cluster } = running();
  const [worker] = pods(cluster, "train-0");
  assert.ok(worker);
  setPhase(cluster, worker, "Succeeded");
  reconcile(cluster, T1);
  assert.equal(status(cluster)["succeeded"], 1);
  const gone = cluster.remove("Pod", worker.metadata.name ?? "");
  assert.deepEqual(actionsOf(reconcile(cluster, T2, [deletedTrigger(gone)]).decision, "create"), []);
  // A later resync carries no trigger: the job's status remembers the worker completed.
  assert.deepEqual(actionsOf(reconcile(cluster, LATER).decision, "create"), []);
  assert.equal(pods(cluster, "train-0").length, 0);
  assert.equal(status(cluster)["phase"], "Running");
});

test("Complete when the training workers succeed; a Complete job is not healed, its counts follow its pods", () => {
  const { cluster } = running();
  for (const pod of [...pods(cluster, "train-0"), ...pods(cluster, "train-1")]) setPhase(cluster, pod, "Succeeded");
  const done = reconcile(cluster, T2);
  assert.deepEqual(actionsOf(done.decision, "create"), []);
  const s = status(cluster);
  assert.equal(s["phase"], "Succeeded");
  assert.equal(s["completionTime"], T2);
  assert.equal(s["succeeded"], 2);
  assert.equal(s["active"], 1, "the aggregation pod still runs");
  const conditions = s["conditions"] as { type: string; status: string; message: string }[];
  assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}`), ["Training=False", "Complete=True"]);
  assert.deepEqual(new Set(conditions.map((c) => c.message)).size, 1, "the stale Training condition does not still say the workers are running");
  assert.ok(cluster.events.some((e) => e.reason === "TrainingCompleted"));
  const [agg] = pods(cluster, "aggregation");
  const gone = cluster.remove("Pod", agg?.metadata.name ?? "");
  const after = reconcile(cluster, T3, [deletedTrigger(gone)]);
  assert.deepEqual(after.decision.actions.map((a) => a.type), ["status"], "no pod, no event: only the counts");
  assert.equal(status(cluster)["active"], 0);
  assert.equal(status(cluster)["succeeded"], 2);
  assert.equal(status(cluster)["phase"], "Succeeded");
  assert.deepEqual(reconcile(cluster, LATER).decision, { actions: [] });
});

test("Failed when a worker fails for good; a Failed job is not healed", () => {
  const { cluster } = running();
  const [worker] = pods(cluster, "train-1");
  assert.ok(worker);
  setPhase(cluster, worker, "Failed");
  reconcile(cluster, T1);
  const s = status(cluster);
  assert.equal(s["phase"], "Failed");
  assert.equal(s["failed"], 1);
  assert.equal(s["completionTime"], T1);
  assert.ok(cluster.events.some((e) => e.eventType === "Warning" && e.reason === "WorkerFailed"));
  const conditions = s["conditions"] as { type: string; status: string; message: string }[];
  assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}`), ["Training=False", "Failed=True"]);
  assert.match(conditions[1]?.message ?? "", new RegExp(`^worker train-1 failed: pod ${worker.metadata.name ?? ""}`));
  assert.equal(conditions[0]?.message, conditions[1]?.message, "Training=False does not still say the workers are running");
  const gone = cluster.remove("Pod", worker.metadata.name ?? "");
  assert.deepEqual(reconcile(cluster, T2, [deletedTrigger(gone)]).decision, { actions: [] });
});

test("counts add up to the pods: a Failed job whose other pods fail too reports active 0, and nothing is healed", () => {
  const { cluster } = running();
  setPhases(cluster, "Failed", "train-1");
  reconcile(cluster, T1);
  assert.deepEqual([status(cluster)["phase"], status(cluster)["active"], status(cluster)["failed"]], ["Failed", 2, 1]);
  setPhases(cluster, "Failed", "train-0");
  setPhases(cluster, "Failed", "aggregation");
  const after = reconcile(cluster, T2);
  assert.deepEqual(actionsOf(after.decision, "create"), []);
  assert.deepEqual(actionsOf(after.decision, "event"), [], "the job already said it failed");
  assert.deepEqual([status(cluster)["phase"], status(cluster)["active"], status(cluster)["failed"]], ["Failed", 0, 3]);
  // A failed pod deleted afterwards still counts: the status remembers it.
  const [victim] = pods(cluster, "train-0");
  const gone = cluster.remove("Pod", victim?.metadata.name ?? "");
  assert.deepEqual(reconcile(cluster, T3, [deletedTrigger(gone)]).decision, { actions: [] });
  assert.equal(status(cluster)["failed"], 3);
});

test("Running only when every worker runs: a pod pinned to a node that never runs it keeps the job Pending, saying which", () => {
  const { cluster } = setup();
  const job = cluster.get("FederatedLearningJob", NAME);
  assert.ok(job);
  const spec = structuredClone(job["spec"]) as { trainingWorkers: { template: { spec: { nodeName: string } } }[] };
  const worker = spec.trainingWorkers[1];
  assert.ok(worker);
  worker.template.spec.nodeName = "edge9";
  cluster.update({ ...job, spec });
  reconcile(cluster, T0);
  setPhases(cluster, "Running", "aggregation");
  setPhases(cluster, "Running", "train-0");
  setPhases(cluster, "Pending", "train-1");
  reconcile(cluster, T1);
  const [stuck] = pods(cluster, "train-1");
  const s = status(cluster);
  assert.equal(s["phase"], "Pending");
  assert.equal(s["active"], 3, "pending pods are active");
  const conditions = s["conditions"] as { type: string; status: string; reason: string; message: string }[];
  assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}/${c.reason}`), ["Training=False/WorkersNotRunning"]);
  assert.equal(conditions[0]?.message, `waiting for train-1 (pod ${stuck?.metadata.name ?? ""} Pending on node edge9)`);
  assert.deepEqual(reconcile(cluster, T2).decision, { actions: [] }, "still waiting: nothing to write");
  setPhases(cluster, "Running", "train-1");
  reconcile(cluster, T3);
  assert.equal(status(cluster)["phase"], "Running");
  const running = (status(cluster)["conditions"] as { type: string; status: string; message: string }[])[0];
  assert.deepEqual([running?.type, running?.status, running?.message], ["Training", "True", "3 of 3 workers running (aggregation, train-0, train-1)"]);
  // A running worker's replacement is not running yet: the job says so again.
  const [victim] = pods(cluster, "train-0");
  const gone = cluster.remove("Pod", victim?.metadata.name ?? "");
  reconcile(cluster, LATER, [deletedTrigger(gone)]);
  const [replacement] = pods(cluster, "train-0");
  assert.equal(status(cluster)["phase"], "Pending");
  const message = (): string => (status(cluster)["conditions"] as { message: string }[])[0]?.message ?? "";
  assert.equal(message(), `waiting for train-0 (creating pod ${replacement?.metadata.name ?? ""})`);
  reconcile(cluster, LATER);
  assert.equal(message(), `waiting for train-0 (pod ${replacement?.metadata.name ?? ""} Pending on node edge1)`);
});

test("defect: Training conditions appended without bound — one condition per type, updated in place", () => {
  const { cluster } = setup();
  const job = cluster.get("FederatedLearningJob", NAME);
  assert.ok(job);
  const training = (round: number): Record<string, unknown> => ({ type: "Training", status: "True", reason: `round ${round}`, lastHeartbeatTime: T0 });
  cluster.update({ ...job, status: { phase: "Running", conditions: [1, 2, 3, 4, 5].map(training) } });
  reconcile(cluster, T1);
  setPhases(cluster, "Running");
  reconcile(cluster, T2);
  const conditions = status(cluster)["conditions"] as { type: string; reason: string }[];
  assert.deepEqual(conditions.map((c) => c.type), ["Training"]);
  assert.equal(conditions[0]?.reason, "WorkersRunning");
});

test("the round an LC reported (DoTraining, through the edge channel) stays the Training condition while the workers run; a stop replaces it", () => {
  const { cluster } = running();
  const job = cluster.get("FederatedLearningJob", NAME);
  assert.ok(job);
  const before = status(cluster)["conditions"] as Record<string, unknown>[];
  const report = { ...before[0], reason: "DoTraining", message: "Round 4 reaches at 2026-11-22T12:00:30Z" };
  cluster.update({ ...job, status: { ...status(cluster), conditions: [report] } });
  assert.deepEqual(reconcile(cluster, T2).decision, { actions: [] }, "nothing to write: the report is kept, no Event");
  assert.deepEqual(status(cluster)["conditions"], [report]);
  setPhase(cluster, pods(cluster, "train-0")[0] as KubeObject, "Pending");
  reconcile(cluster, T3);
  const after = status(cluster)["conditions"] as { type: string; status: string; reason: string }[];
  assert.deepEqual(after.map((c) => [c.type, c.status, c.reason]), [["Training", "False", "WorkersNotRunning"]]);
});

test("defect: controller-wide fields — each job's pods use only that job's data", () => {
  const cluster = new FakeCluster();
  const a = setup("job-a");
  const b = setup("job-b");
  // Each object created again in one cluster: its own uid there (the two setups' counters gave both jobs one uid).
  for (const made of [a, b]) for (const object of [...made.cluster.list("Model"), ...made.cluster.list("Dataset"), ...made.cluster.list("FederatedLearningJob")]) cluster.add({ ...object, metadata: { ...object.metadata, uid: undefined } });
  reconcile(cluster, T0, [], "job-a");
  reconcile(cluster, T0, [], "job-b");
  const jobA = cluster.get("FederatedLearningJob", "job-a");
  assert.ok(jobA);
  const spec = structuredClone(jobA["spec"]) as { aggregationWorker: { template: { spec: { nodeName: string } } } };
  spec.aggregationWorker.template.spec.nodeName = "cloud2";
  cluster.update({ ...jobA, spec });
  reconcile(cluster, T1, [], "job-a");
  for (const pod of cluster.list("Pod")) {
    const job = pod.metadata.ownerReferences?.[0]?.name ?? "";
    const e = env(pod);
    assert.equal(e["JOB_NAME"], job);
    if (e["AGG_IP"] !== undefined) assert.equal(e["AGG_IP"], `${job}-aggregation.default`);
    assert.equal(pod.metadata.labels?.["federatedlearningjob.sedna.io/name"], job);
  }
  assert.equal(cluster.list("Pod").filter((p) => p.metadata.ownerReferences?.[0]?.name === "job-b").length, 3, "job-b untouched");
  assert.equal(cluster.list("Pod").length, 6);
});

test("pods we do not control are never healed nor counted", () => {
  const { cluster } = running();
  const stranger = cluster.add({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${NAME}-train-zzzzz`,
      namespace: "default",
      labels: { "federatedlearningjob.sedna.io/name": NAME, [WORKER_SLOT_LABEL]: "train-0" },
      ownerReferences: [{ apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", name: NAME, uid: "an-older-job", controller: true }],
    },
    spec: {},
    status: { phase: "Failed" },
  });
  const seen = reconcile(cluster, T1);
  assert.deepEqual(seen.decision.actions, [], "neither deleted, nor counted as a failure");
  const gone = cluster.remove("Pod", stranger.metadata.name ?? "");
  assert.deepEqual(reconcile(cluster, T2, [deletedTrigger(gone)]).decision.actions, []);
});

test("a duplicate pod of one worker (a lagging cache) is removed, keeping the oldest", () => {
  const { cluster } = running();
  const [original] = pods(cluster, "train-0");
  assert.ok(original);
  const copy = structuredClone(original);
  copy.metadata = { ...copy.metadata, name: `${NAME}-train-dupli`, uid: undefined, creationTimestamp: LATER };
  cluster.add(copy);
  const { decision } = reconcile(cluster, T1);
  assert.deepEqual(actionsOf(decision, "delete").map((d) => d.target.name), [`${NAME}-train-dupli`]);
  assert.deepEqual(pods(cluster, "train-0").map((p) => p.metadata.name), [original.metadata.name]);
});

test("s3 transmitter and pretrained model: TRANSMITTER, AGG_DATA_PATH, credentials and PRETRAINED_MODEL_URL", () => {
  const { cluster } = setup();
  cluster.add(sedna("Model", "pretrained", { url: "s3://models/pre.pb", format: "pb" }));
  const job = cluster.get("FederatedLearningJob", NAME);
  assert.ok(job);
  cluster.update({ ...job, spec: { ...(job["spec"] as object), pretrainedModel: { name: "pretrained" }, transmitter: { s3: { aggDataPath: "s3://agg/", credentialName: "agg-creds" } } } });
  reconcile(cluster, T0);
  for (const pod of pods(cluster)) {
    const e = env(pod);
    assert.equal(e["TRANSMITTER"], "s3");
    assert.equal(e["AGG_DATA_PATH"], "s3://agg/");
    assert.equal(e["PRETRAINED_MODEL_URL"], "/downloads/models/pre.pb");
    const container = (pod["spec"] as { containers: { envFrom: unknown }[] }).containers[0];
    assert.deepEqual(container?.envFrom, [{ secretRef: { name: "agg-creds" } }]);
  }
});

test("a missing Dataset keeps the job Pending with the reason, and nothing is created", () => {
  const { cluster } = setup();
  cluster.remove("Dataset", "edge2-surface-defect-detection-dataset");
  const { decision } = reconcile(cluster, T0);
  assert.deepEqual(actionsOf(decision, "create"), []);
  assert.equal(status(cluster)["phase"], "Pending");
  const conditions = status(cluster)["conditions"] as { reason: string; message: string }[];
  assert.equal(conditions[0]?.reason, "InputsNotReady");
  const message = 'spec.trainingWorkers[1].dataset.name: Dataset "edge2-surface-defect-detection-dataset" not found';
  assert.equal(conditions[0]?.message, message);
  assert.deepEqual(
    cluster.events.map((e) => [e.eventType, e.reason, e.message]),
    [["Warning", "InputsNotReady", `Pending: ${message}`]],
  );
  assert.deepEqual(reconcile(cluster, T1).decision, { actions: [] }, "said once");
});

/** A valid job name (a DNS subdomain) of exactly `length` characters, with dots when long. */
function longName(length: number): string {
  const chars = "abcdefghi-".repeat(Math.ceil(length / 10)).slice(0, length).split("");
  // Dots in place of some '-' (each between letters): a subdomain may have them, a DNS label may not.
  if (length > 100) for (let i = 49; i < length - 1; i += 50) chars[i] = ".";
  if (chars[length - 1] === "-") chars[length - 1] = "z";
  return chars.join("");
}

for (const length of [63, 70, 253]) {
  test(`a ${length}-character job name: pod and Service names are DNS labels, label values fit, AGG_IP and selectors agree`, () => {
    const name = longName(length);
    const { cluster } = setup(name);
    const { result } = reconcile(cluster, T0, [], name);
    assert.deepEqual(result.errors, []);
    const service = cluster.list("Service")[0];
    assert.ok(service);
    const serviceName = service.metadata.name ?? "";
    assert.ok(isDns1035Label(serviceName).length === 0, `Service ${serviceName}`);
    assert.match(serviceName, /-aggregation$/);
    const selector = (service["spec"] as { selector: Record<string, string> }).selector;
    for (const pod of pods(cluster)) {
      assert.ok(isDns1123Label(pod.metadata.name ?? "").length === 0, `pod ${pod.metadata.name ?? ""} is a DNS label (a hostname)`);
      for (const value of Object.values(pod.metadata.labels ?? {})) assert.ok(isValidLabelValue(value).length === 0, `label value ${value}`);
      assert.equal(env(pod)["JOB_NAME"], name, "the env carries the whole name");
      if (pod.metadata.labels?.[WORKER_SLOT_LABEL] !== "aggregation") assert.equal(env(pod)["AGG_IP"], `${serviceName}.default`);
    }
    const [agg] = pods(cluster, "aggregation");
    assert.ok(Object.entries(selector).every(([k, v]) => agg?.metadata.labels?.[k] === v), "the Service selects the aggregation pod");
    assert.equal(pods(cluster).filter((p) => Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v)).length, 1);
    for (const value of Object.values(service.metadata.labels ?? {})) assert.ok(isValidLabelValue(value).length === 0, `label value ${value}`);
    // The same names on replay, and self-healing still finds the slot.
    setPhases(cluster, "Running");
    reconcile(cluster, T1, [], name);
    assert.equal(status(cluster, name)["phase"], "Running");
    assert.deepEqual(reconcile(cluster, T2, [], name).decision, { actions: [] });
    const [victim] = pods(cluster, "train-0");
    const gone = cluster.remove("Pod", victim?.metadata.name ?? "");
    const healed = reconcile(cluster, T3, [deletedTrigger(gone)], name);
    assert.equal(actionsOf(healed.decision, "create").length, 1);
    assert.ok(isDns1123Label(pods(cluster, "train-0")[0]?.metadata.name ?? "").length === 0);
    assert.equal(pods(cluster).length, 3);
  });
}
