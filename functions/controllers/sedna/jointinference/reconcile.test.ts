import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { isDns1035Label, isDns1123Label, isValidLabelValue } from "../../../../protocol/kube/names.ts";
import type { Decision } from "../../../kit/controller.ts";
import type { KubeObject, Trigger } from "../../../../protocol/index.ts";
import { SPEC_HASH_LABEL } from "../../../kit/labels.ts";
import { FakeCluster, actionsOf, deletedTrigger, parseManifests, type Applied } from "../../../kit/testing/index.ts";
import controller from "./controller.ts";
import { reconcileJointInference } from "./reconcile.ts";

const NAME = "helmet-detection-inference-example";
const CLOUD = `${NAME}-deployment-cloud`;
const EDGE = `${NAME}-deployment-edge`;
const T0 = "2026-11-22T12:00:00.000Z";
const T1 = "2026-11-22T12:00:01.000Z";
const T2 = "2026-11-22T12:00:02.000Z";
const LATER = "2026-11-22T12:01:00.000Z";

const fixture = parseManifests(readFileSync(new URL("../../sedna/fixtures/jointinferenceservice_v1alpha1.yaml", import.meta.url), "utf8"))[0] as KubeObject;

function model(name: string, url: string, credentialName?: string): KubeObject {
  return {
    apiVersion: "sedna.io/v1alpha1",
    kind: "Model",
    metadata: { name, namespace: "default" },
    spec: { url, format: "pb", ...(credentialName ? { credentialName } : {}) },
  } as KubeObject;
}

/** A cluster with the upstream fixture and its two Models (one on the host, one in S3). */
function setup(): { cluster: FakeCluster; ji: KubeObject } {
  const cluster = new FakeCluster();
  cluster.add(model("helmet-detection-inference-little-model", "/data/little-model/yolov3.pb"));
  cluster.add(model("helmet-detection-inference-big-model", "s3://models/big/yolov3_darknet.pb", "s3-secret"));
  const ji = cluster.add(structuredClone(fixture));
  return { cluster, ji };
}

function reconcile(cluster: FakeCluster, now: string, triggers: Trigger[] = []): { decision: Decision; result: Applied } {
  const request = cluster.request(controller, { name: NAME, triggers, now });
  const decision = reconcileJointInference(request);
  return { decision, result: cluster.apply(decision, now) };
}

function env(deployment: KubeObject | undefined, container = 0): Record<string, string> {
  const spec = (deployment?.["spec"] as { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } }).template.spec;
  return Object.fromEntries((spec.containers[container]?.env ?? []).map((e) => [e.name, e.value]));
}

function podSpec(deployment: KubeObject | undefined): Record<string, unknown> {
  return (deployment?.["spec"] as { template: { spec: Record<string, unknown> } }).template.spec;
}

/** Makes a Deployment report what the Deployment controller would. */
function setDeploymentStatus(cluster: FakeCluster, name: string, status: Record<string, unknown>): void {
  const deployment = cluster.get("Deployment", name);
  assert.ok(deployment);
  cluster.update({ ...deployment, status: { observedGeneration: deployment.metadata.generation, ...status } });
}

function statusOf(cluster: FakeCluster): Record<string, unknown> {
  return (cluster.get("JointInferenceService", NAME)?.["status"] ?? {}) as Record<string, unknown>;
}

function trueCondition(cluster: FakeCluster): string | undefined {
  const conditions = (statusOf(cluster)["conditions"] ?? []) as { type: string; status: string }[];
  return conditions.find((c) => c.status === "True")?.type;
}

test("creates the cloud and edge Deployments and the cloud Service, owned by the live JI", () => {
  const { cluster, ji } = setup();
  const { result } = reconcile(cluster, T0);
  assert.deepEqual(result.errors, []);
  assert.deepEqual(cluster.list("Deployment").map((d) => d.metadata.name).sort(), [CLOUD, EDGE]);
  const service = cluster.get("Service", `${NAME}-cloud`);
  assert.ok(service);
  assert.deepEqual((service["spec"] as { ports: { port: number }[] }).ports.map((p) => p.port), [5000]);
  assert.equal((service["spec"] as { type: string }).type, "ClusterIP");
  for (const child of [...cluster.list("Deployment"), service]) {
    assert.deepEqual(child.metadata.ownerReferences, [
      { apiVersion: "sedna.io/v1alpha1", kind: "JointInferenceService", name: NAME, uid: ji.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(child.metadata.labels?.["jointinferenceservice.sedna.io/name"], NAME);
    assert.equal(child.metadata.labels?.["jointinferenceservice.sedna.io/uid"], ji.metadata.uid);
    assert.ok(child.metadata.labels?.[SPEC_HASH_LABEL]);
  }
  assert.equal(cluster.get("Deployment", CLOUD)?.metadata.labels?.["jointinferenceservice.sedna.io/worker-type"], "cloud");
  assert.deepEqual((service["spec"] as { selector: unknown }).selector, (cluster.get("Deployment", CLOUD)?.["spec"] as { selector: { matchLabels: unknown } }).selector.matchLabels);
  assert.deepEqual(cluster.events.map((e) => e.reason).sort(), ["Created", "Created", "Created", "WorkersNotReady"]);
  assert.equal(trueCondition(cluster), "Pending");
  assert.equal(statusOf(cluster)["startTime"], T0);
  assert.equal(statusOf(cluster)["observedGeneration"], 1);
});

test("workers get the env vars and model wiring of the spec: host path mount, S3 download with credentials", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  const cloud = cluster.get("Deployment", CLOUD);
  const edge = cluster.get("Deployment", EDGE);
  const cloudEnv = env(cloud);
  assert.equal(cloudEnv["BIG_MODEL_BIND_PORT"], "5000");
  assert.equal(cloudEnv["MODEL_URL"], "/downloads/models/big/yolov3_darknet.pb");
  assert.equal(cloudEnv["SERVICE_NAME"], NAME);
  assert.equal(cloudEnv["NAMESPACE"], "default");
  assert.match(cloudEnv["WORKER_NAME"] ?? "", /^cloudworker-[0-9a-z]{5}$/);
  assert.equal(cloudEnv["input_shape"], "544,544", "the user's env vars are kept");
  const init = (podSpec(cloud)["initContainers"] as { args: string[]; envFrom: unknown }[])[0];
  assert.deepEqual(init?.args, ["s3://models/big/yolov3_darknet.pb", "/downloads/models/big/yolov3_darknet.pb"]);
  assert.deepEqual(init?.envFrom, [{ secretRef: { name: "s3-secret" } }]);
  const edgeEnv = env(edge);
  assert.equal(edgeEnv["BIG_MODEL_IP"], `${NAME}-cloud.default`);
  assert.equal(edgeEnv["BIG_MODEL_PORT"], "5000");
  assert.equal(edgeEnv["HEM_NAME"], "IBT");
  assert.deepEqual(JSON.parse(edgeEnv["HEM_PARAMETERS"] ?? ""), [{ key: "threshold_img", value: "0.5" }, { key: "threshold_box", value: "0.5" }]);
  assert.equal(edgeEnv["LC_SERVER"], "http://localhost:9100");
  assert.equal(edgeEnv["MODEL_URL"], "/home/data/data/little-model/yolov3.pb");
  assert.equal(edgeEnv["DATA_PATH_PREFIX"], "/home/data", "upstream's injector adds it beside a host path mount");
  assert.equal(cloudEnv["DATA_PATH_PREFIX"], undefined, "the cloud model is downloaded, nothing is mounted from the host");
  for (const e of [cloudEnv, edgeEnv]) assert.deepEqual([e["NAMESPACE"], e["SERVICE_NAME"]], ["default", NAME]);
  assert.match(edgeEnv["WORKER_NAME"] ?? "", /^edgeworker-[0-9a-z]{5}$/);
  const volumes = podSpec(edge)["volumes"] as { name: string; hostPath?: { path: string } }[];
  assert.ok(volumes.some((v) => v.hostPath?.path === "/data/little-model"), "the model's host directory is mounted");
  assert.ok(volumes.some((v) => v.name === "localvideo"), "the user's volumes are kept");
  assert.equal((cluster.get("Deployment", EDGE)?.["spec"] as { replicas: number }).replicas, 1);
});

test("replaying the same snapshot once the children exist creates nothing and writes no status", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  const again = reconcile(cluster, T1);
  assert.deepEqual(again.decision.actions, []);
  const third = reconcile(cluster, T2);
  assert.deepEqual(third.decision, { actions: [] });
});

test("hpa: an autoscaling/v2 HPA hpa-<deployment> when set, deleted when removed", () => {
  const { cluster } = setup();
  const ji = cluster.get("JointInferenceService", NAME);
  assert.ok(ji);
  const spec = structuredClone(ji["spec"]) as { cloudWorker: Record<string, unknown> };
  spec.cloudWorker["hpa"] = { minReplicas: 2, maxReplicas: 5, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } }] };
  cluster.update({ ...ji, spec });
  reconcile(cluster, T0);
  const hpa = cluster.get("HorizontalPodAutoscaler", `hpa-${CLOUD}`);
  assert.ok(hpa);
  assert.equal(hpa.apiVersion, "autoscaling/v2");
  assert.deepEqual((hpa["spec"] as Record<string, unknown>)["scaleTargetRef"], { apiVersion: "apps/v1", kind: "Deployment", name: CLOUD });
  assert.equal((hpa["spec"] as Record<string, unknown>)["maxReplicas"], 5);
  assert.equal((cluster.get("Deployment", CLOUD)?.["spec"] as { replicas: number }).replicas, 2);
  assert.equal(cluster.get("HorizontalPodAutoscaler", `hpa-${EDGE}`), undefined);
  const current = cluster.get("JointInferenceService", NAME);
  assert.ok(current);
  delete (current["spec"] as { cloudWorker: Record<string, unknown> }).cloudWorker["hpa"];
  cluster.update(current);
  reconcile(cluster, T1);
  assert.equal(cluster.get("HorizontalPodAutoscaler", `hpa-${CLOUD}`), undefined);
});

test("defect: generation was ignored — a new generation patches the changed Deployment in place and observedGeneration follows", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  const cloudBefore = cluster.get("Deployment", CLOUD);
  const edgeBefore = cluster.get("Deployment", EDGE);
  const ji = cluster.get("JointInferenceService", NAME);
  assert.ok(ji && cloudBefore && edgeBefore);
  const spec = structuredClone(ji["spec"]) as { edgeWorker: { template: { spec: { containers: { image: string }[] } } } };
  const container = spec.edgeWorker.template.spec.containers[0];
  assert.ok(container);
  container.image = "kubeedge/sedna-example-joint-inference-helmet-detection-little:v0.2.0";
  const updated = cluster.update({ ...ji, spec });
  assert.equal(updated.metadata.generation, 2);
  const { decision } = reconcile(cluster, T1);
  assert.deepEqual(actionsOf(decision, "create"), []);
  assert.deepEqual(actionsOf(decision, "delete"), []);
  assert.deepEqual(actionsOf(decision, "patch").map((p) => p.target.name), [EDGE], "only the changed worker rolls");
  const edge = cluster.get("Deployment", EDGE);
  assert.equal(edge?.metadata.uid, edgeBefore.metadata.uid, "updated in place, not recreated");
  assert.notEqual(edge?.metadata.labels?.[SPEC_HASH_LABEL], edgeBefore.metadata.labels?.[SPEC_HASH_LABEL]);
  assert.equal((podSpec(edge)["containers"] as { image: string }[])[0]?.image, container.image);
  assert.deepEqual(cluster.get("Deployment", CLOUD), cloudBefore);
  assert.equal(statusOf(cluster)["observedGeneration"], 2);
});

test("status-only and metadata-only updates roll nothing", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  const ji = cluster.get("JointInferenceService", NAME);
  assert.ok(ji);
  cluster.update({ ...ji, metadata: { ...ji.metadata, labels: { team: "vision" }, annotations: { note: "x" } } });
  const afterMeta = reconcile(cluster, T1);
  assert.deepEqual(afterMeta.decision.actions, []);
  const again = cluster.get("JointInferenceService", NAME);
  assert.ok(again);
  cluster.update({ ...again, status: { ...(again["status"] as object), metrics: [{ key: "fps", value: "30" }] } });
  const afterStatus = reconcile(cluster, T2);
  assert.deepEqual(afterStatus.decision.actions, []);
});

test("defect: setting deletionTimestamp bumps generation — a JI being deleted is never rolled or healed", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  const ji = cluster.get("JointInferenceService", NAME);
  assert.ok(ji);
  const gone = cluster.remove("Deployment", CLOUD);
  cluster.update({
    ...ji,
    metadata: { ...ji.metadata, generation: 2, deletionTimestamp: T1, finalizers: ["foregroundDeletion"] },
  });
  const { decision } = reconcile(cluster, T1, [deletedTrigger(gone)]);
  assert.deepEqual(decision, { actions: [] });
});

test("defect: health read from the last condition, Failed terminal — a new Deployment is Pending, a stuck one Failed, and the JI recovers", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  // Merely new: the Deployment controller has not reported yet; its last condition says nothing.
  setDeploymentStatus(cluster, CLOUD, { observedGeneration: 0, conditions: [{ type: "Progressing", status: "False", reason: "NewReplicaSetCreated" }] });
  reconcile(cluster, T1);
  assert.equal(trueCondition(cluster), "Pending");
  setDeploymentStatus(cluster, CLOUD, { availableReplicas: 0, unavailableReplicas: 1, conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" }] });
  reconcile(cluster, T1);
  assert.equal(trueCondition(cluster), "Failed");
  assert.equal(statusOf(cluster)["failed"], 1);
  assert.ok(cluster.events.some((e) => e.eventType === "Warning" && e.reason === "WorkerFailed"));
  setDeploymentStatus(cluster, CLOUD, { availableReplicas: 1, conditions: [{ type: "ReplicaFailure", status: "True" }] });
  setDeploymentStatus(cluster, EDGE, { availableReplicas: 1 });
  reconcile(cluster, T2);
  assert.equal(trueCondition(cluster), "Running");
  assert.equal(statusOf(cluster)["active"], 2);
  assert.equal(statusOf(cluster)["failed"], 0);
  const conditions = statusOf(cluster)["conditions"] as { type: string; status: string; message: string }[];
  assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}`).sort(), ["Failed=False", "Pending=False", "Running=True"], "one condition per type");
  for (const c of conditions) assert.equal(c.message, "the edge and cloud workers are available", `${c.type} tells the current state`);
});

test("a healthy JI: Running is the one True condition, and no stale condition still says it is waiting", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  assert.equal(trueCondition(cluster), "Pending");
  setDeploymentStatus(cluster, CLOUD, { availableReplicas: 1 });
  reconcile(cluster, T1);
  const pending = (statusOf(cluster)["conditions"] as { type: string; message: string }[]).find((c) => c.type === "Pending");
  assert.equal(pending?.message, "waiting for edge worker", "the cloud worker is no longer waited for");
  setDeploymentStatus(cluster, EDGE, { availableReplicas: 1 });
  reconcile(cluster, T2);
  const conditions = statusOf(cluster)["conditions"] as { type: string; status: string; reason: string; message: string }[];
  // What `kubectl get ji` prints in its Status column: the types of the True conditions.
  assert.deepEqual(conditions.filter((c) => c.status === "True").map((c) => c.type), ["Running"]);
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ["Pending", "False", "WorkersAvailable", "the edge and cloud workers are available"],
      ["Running", "True", "WorkersAvailable", "the edge and cloud workers are available"],
    ],
  );
  assert.equal(statusOf(cluster)["active"], 2);
  assert.deepEqual(reconcile(cluster, LATER).decision, { actions: [] });
});

test("defect: deleteDeployment trusted the name — a same-named Deployment we do not control is never touched", () => {
  const { cluster } = setup();
  const stranger = cluster.add({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: CLOUD,
      namespace: "default",
      labels: { "jointinferenceservice.sedna.io/name": NAME, [SPEC_HASH_LABEL]: "stale" },
      // An earlier incarnation of the same name, still being collected.
      ownerReferences: [{ apiVersion: "sedna.io/v1alpha1", kind: "JointInferenceService", name: NAME, uid: "old-uid", controller: true }],
    },
    spec: {},
  });
  // Not this JI's child: the relay finds children by the parent's uid, so the snapshot does
  // not hold it, and the create of the name it holds is refused until it is collected.
  const { decision, result } = reconcile(cluster, T0);
  for (const action of decision.actions) {
    if (action.type === "patch" || action.type === "delete") assert.notEqual(action.target.name, CLOUD);
  }
  assert.deepEqual(result.errors, [`409 AlreadyExists Deployment ${CLOUD}`], "the name is taken: refused, and retried by the relay");
  assert.deepEqual(cluster.get("Deployment", CLOUD), stranger);
  cluster.remove("Deployment", CLOUD);
  reconcile(cluster, T1, [deletedTrigger(stranger)]);
  assert.notEqual(cluster.get("Deployment", CLOUD)?.metadata.uid, stranger.metadata.uid);
  assert.ok(cluster.get("Deployment", CLOUD), "created once the name is free");
});

test("self-healing: a deleted Deployment and Service are recreated exactly once per deletion, even when the event is replayed", () => {
  const { cluster, ji } = setup();
  reconcile(cluster, T0);
  const deployment = cluster.remove("Deployment", CLOUD);
  const service = cluster.remove("Service", `${NAME}-cloud`);
  const triggers = [deletedTrigger(deployment), deletedTrigger(service)];
  const first = reconcile(cluster, T1, triggers);
  const creates = actionsOf(first.decision, "create");
  assert.deepEqual(creates.map((c) => c.object.metadata.name).sort(), [`${NAME}-cloud`, CLOUD]);
  assert.deepEqual(creates.map((c) => c.claim?.key).sort(), [
    `${ji.metadata.uid}/Deployment/${CLOUD}/${deployment.metadata.uid}`,
    `${ji.metadata.uid}/Service/${NAME}-cloud/${service.metadata.uid}`,
  ]);
  assert.equal(first.decision.requeueAfterSeconds, 6);
  assert.ok(cluster.events.some((e) => e.reason === "Recreated"));
  // Each Recreated Event is told only if the create before it was applied (a refused create is no recreation).
  const told = actionsOf(first.decision, "event").filter((e) => e.reason === "Recreated");
  assert.equal(told.length, 2);
  assert.ok(told.every((e) => e.ifPreviousApplied === true));
  // The relay restarted and replays the deletion while its cache still misses the new objects.
  const replay = cluster.request(controller, { name: NAME, triggers, now: T2 });
  replay.children["Deployment.apps/v1"] = (replay.children["Deployment.apps/v1"] ?? []).filter((d) => d.metadata.name !== CLOUD);
  const result = cluster.apply(reconcileJointInference(replay), T2);
  assert.equal(result.dropped.filter((a) => a.type === "create").length, 1, "the ledger drops the second replacement");
  assert.deepEqual(result.errors, []);
  assert.equal(cluster.list("Deployment").filter((d) => d.metadata.name === CLOUD).length, 1);
});

test("graceful deletion: a terminating Deployment is waited for, not raced with a 409", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  cluster.markDeleting("Deployment", EDGE, T1);
  const waiting = reconcile(cluster, T1);
  assert.deepEqual(actionsOf(waiting.decision, "create"), []);
  assert.equal(waiting.decision.requeueAfterSeconds, 2);
  const gone = cluster.remove("Deployment", EDGE);
  const healed = reconcile(cluster, T2, [deletedTrigger(gone)]);
  assert.deepEqual(healed.result.errors, []);
  assert.equal(actionsOf(healed.decision, "create").length, 1);
  assert.ok(cluster.get("Deployment", EDGE));
});

test("a missing Model keeps the JI Pending with the reason, and its arrival creates the workers", () => {
  const cluster = new FakeCluster();
  cluster.add(model("helmet-detection-inference-big-model", "/models/big.pb"));
  cluster.add(structuredClone(fixture));
  const { decision } = reconcile(cluster, T0);
  assert.deepEqual(actionsOf(decision, "create"), []);
  const conditions = statusOf(cluster)["conditions"] as { type: string; reason: string; message: string }[];
  assert.equal(conditions[0]?.reason, "ModelNotReady");
  const message = 'spec.edgeWorker.model.name: Model "helmet-detection-inference-little-model" not found';
  assert.equal(conditions[0]?.message, message);
  assert.deepEqual(cluster.events.map((e) => [e.eventType, e.reason, e.message]), [["Warning", "ModelNotReady", `Pending: ${message}`]]);
  assert.deepEqual(reconcile(cluster, T1).decision, { actions: [] }, "said once");
  cluster.add(model("helmet-detection-inference-little-model", "/models/little.pb"));
  reconcile(cluster, LATER);
  assert.equal(cluster.list("Deployment").length, 2);
});

test("an invalid spec is reported on the status naming the field, and nothing is created", () => {
  const { cluster } = setup();
  const ji = cluster.get("JointInferenceService", NAME);
  assert.ok(ji);
  cluster.update({ ...ji, spec: { ...(ji["spec"] as object), cloudWorker: { model: { name: "m" } } } });
  const { decision } = reconcile(cluster, T0);
  assert.deepEqual(actionsOf(decision, "create"), []);
  const conditions = statusOf(cluster)["conditions"] as { type: string; reason: string; message: string }[];
  assert.equal(conditions[0]?.reason, "InvalidSpec");
  assert.match(conditions[0]?.message ?? "", /^spec\.cloudWorker\.template/);
});

test("a deleted parent plans nothing (the garbage collector cascades)", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  cluster.remove("JointInferenceService", NAME);
  assert.deepEqual(reconcile(cluster, T1).decision, { actions: [] });
});

test("a Deployment we control under a name no longer wanted (named before names were bounded) is removed; others' are not", () => {
  const name = "a-joint-inference-service-with-a-fifty-char-name1";
  const cluster = new FakeCluster();
  cluster.add(model("helmet-detection-inference-little-model", "/models/little.pb"));
  cluster.add(model("helmet-detection-inference-big-model", "/models/big.pb"));
  const manifest = structuredClone(fixture);
  manifest.metadata.name = name;
  const ji = cluster.add(manifest);
  const owner = { apiVersion: "sedna.io/v1alpha1", kind: "JointInferenceService", name, controller: true, blockOwnerDeletion: true };
  const legacy = `${name}-deployment-cloud`;
  assert.ok(legacy.length > 63);
  cluster.add({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: legacy, namespace: "default", ownerReferences: [{ ...owner, uid: ji.metadata.uid ?? "" }] }, spec: {} });
  cluster.add({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: `${name}-other`, namespace: "default", ownerReferences: [{ ...owner, uid: "an-older-ji" }] }, spec: {} });
  const decision = reconcileJointInference(
    cluster.request(controller, { name, now: T0 }),
  );
  assert.deepEqual(cluster.apply(decision, T0).errors, []);
  assert.deepEqual(actionsOf(decision, "delete").map((d) => d.target.name), [legacy]);
  const names = cluster.list("Deployment").map((d) => d.metadata.name ?? "").sort();
  assert.equal(names.length, 3);
  assert.ok(names.includes(`${name}-other`), "not ours: untouched");
  assert.ok(names.filter((n) => n !== `${name}-other`).every((n) => n.length <= 63));
});

/** A valid JI name (a DNS subdomain) of exactly `length` characters, with dots when long. */
function longName(length: number): string {
  const chars = "abcdefghi-".repeat(Math.ceil(length / 10)).slice(0, length).split("");
  if (length > 100) for (let i = 49; i < length - 1; i += 50) chars[i] = ".";
  if (chars[length - 1] === "-") chars[length - 1] = "z";
  return chars.join("");
}

for (const length of [63, 70, 253]) {
  test(`a ${length}-character JI name: Deployment, Service and HPA names are DNS labels, label values fit, BIG_MODEL_IP and selectors agree`, () => {
    const name = longName(length);
    const cluster = new FakeCluster();
    cluster.add(model("helmet-detection-inference-little-model", "/data/little-model/yolov3.pb"));
    cluster.add(model("helmet-detection-inference-big-model", "/data/big-model/yolov3.pb"));
    const manifest = structuredClone(fixture) as KubeObject & { spec: { cloudWorker: Record<string, unknown>; edgeWorker: Record<string, unknown> } };
    manifest.metadata.name = name;
    manifest.spec.cloudWorker["hpa"] = { maxReplicas: 3 };
    manifest.spec.edgeWorker["hpa"] = { maxReplicas: 2 };
    cluster.add(manifest);
    const run = (now: string, triggers: Trigger[] = []): { decision: Decision; result: Applied } => {
      const decision = reconcileJointInference(
        cluster.request(controller, { name, triggers, now }),
      );
      return { decision, result: cluster.apply(decision, now) };
    };
    assert.deepEqual(run(T0).result.errors, []);
    const deployments = cluster.list("Deployment");
    const [service] = cluster.list("Service");
    const hpas = cluster.list("HorizontalPodAutoscaler");
    assert.equal(deployments.length, 2);
    assert.equal(hpas.length, 2);
    assert.ok(service);
    assert.ok(isDns1035Label(service.metadata.name ?? "").length === 0, `Service ${service.metadata.name ?? ""}`);
    assert.match(service.metadata.name ?? "", /-cloud$/);
    for (const object of [...deployments, ...hpas, service]) {
      assert.ok(isDns1123Label(object.metadata.name ?? "").length === 0, `${object.kind} ${object.metadata.name ?? ""}`);
      for (const value of Object.values(object.metadata.labels ?? {})) assert.ok(isValidLabelValue(value).length === 0, `label value ${value}`);
    }
    const byType = (type: string): KubeObject | undefined => deployments.find((d) => d.metadata.labels?.["jointinferenceservice.sedna.io/worker-type"] === type);
    const cloud = byType("cloud");
    const edge = byType("edge");
    assert.match(cloud?.metadata.name ?? "", /-deployment-cloud$/);
    assert.match(edge?.metadata.name ?? "", /-deployment-edge$/);
    assert.equal(env(edge)["BIG_MODEL_IP"], `${service.metadata.name ?? ""}.default`, "the edge worker reaches the Service by its actual name");
    assert.equal(env(cloud)["SERVICE_NAME"], name, "the env carries the whole name");
    for (const deployment of [cloud, edge]) {
      const spec = deployment?.["spec"] as { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } };
      assert.ok(Object.entries(spec.selector.matchLabels).every(([k, v]) => spec.template.metadata.labels[k] === v), "the Deployment selects its own pods");
    }
    const cloudPods = (cloud?.["spec"] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const edgePods = (edge?.["spec"] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const selector = (service["spec"] as { selector: Record<string, string> }).selector;
    assert.ok(Object.entries(selector).every(([k, v]) => cloudPods[k] === v), "the Service selects the cloud pods");
    assert.ok(!Object.entries(selector).every(([k, v]) => edgePods[k] === v), "and not the edge pods");
    for (const hpa of hpas) {
      const target = (hpa["spec"] as { scaleTargetRef: { name: string } }).scaleTargetRef.name;
      assert.ok(deployments.some((d) => d.metadata.name === target), `HPA ${hpa.metadata.name ?? ""} scales an existing Deployment`);
    }
    assert.deepEqual(run(T1).decision.actions, [], "the same names on replay");
    // Healing and HPA removal find the children by these names.
    const gone = cluster.remove("Deployment", cloud?.metadata.name ?? "");
    assert.equal(actionsOf(run(T2, [deletedTrigger(gone)]).decision, "create").length, 1);
    const current = cluster.get("JointInferenceService", name);
    assert.ok(current);
    delete (current["spec"] as { edgeWorker: Record<string, unknown> }).edgeWorker["hpa"];
    cluster.update(current);
    run(LATER);
    assert.equal(cluster.list("HorizontalPodAutoscaler").length, 1);
  });
}

test("a Service whose spec-hash is not the one wanted (written by an older edgeloop, or edited) is patched in place, once", () => {
  const { cluster } = setup();
  reconcile(cluster, T0);
  const service = cluster.get("Service", `${NAME}-cloud`);
  assert.ok(service);
  cluster.update({ ...service, metadata: { ...service.metadata, labels: { ...service.metadata.labels, [SPEC_HASH_LABEL]: "stale" } } });
  const { decision } = reconcile(cluster, T1);
  assert.deepEqual(actionsOf(decision, "patch").map((p) => `${p.target.kind} ${p.target.name}`), [`Service ${NAME}-cloud`]);
  assert.equal(cluster.get("Service", `${NAME}-cloud`)?.metadata.uid, service.metadata.uid, "patched, not recreated");
  assert.equal(cluster.get("Service", `${NAME}-cloud`)?.metadata.labels?.[SPEC_HASH_LABEL], service.metadata.labels?.[SPEC_HASH_LABEL]);
  assert.deepEqual(actionsOf(reconcile(cluster, T1).decision, "patch"), [], "once: the next reconcile finds it as wanted");
});
