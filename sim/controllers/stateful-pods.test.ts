import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { ordinalOf, planStatefulSet, statefulPod, statefulSetStatus, updateRevision } from "./stateful-pods.ts";

type Obj = Record<string, unknown>;

function sts(spec: Obj = {}, status: Obj = {}): KubeObject {
  return { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "db", namespace: "ns", uid: "u", generation: 1 }, spec: { replicas: 3, serviceName: "svc", podManagementPolicy: "OrderedReady", updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } }, template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "c", image: "a" }] } }, ...spec }, status } as KubeObject;
}

/** The set's pod at `ordinal`, Ready or not, at the set's current revision unless `revision` says. */
function pod(set: KubeObject, ordinal: number, ready = true, revision?: string): KubeObject {
  const made = statefulPod(set, ordinal);
  const labels = { ...made.metadata.labels, ...(revision ? { "controller-revision-hash": revision } : {}) };
  return { ...made, metadata: { ...made.metadata, labels }, status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] } } as KubeObject;
}
const names = (pods: readonly KubeObject[]): string[] => pods.map((p) => p.metadata.name ?? "");

test("stable names, hostname and subdomain, the ordinal labels", () => {
  const made = statefulPod(sts(), 2) as KubeObject & { spec: Obj };
  assert.equal(made.metadata.name, "db-2");
  assert.equal(made.spec.hostname, "db-2");
  assert.equal(made.spec.subdomain, "svc");
  assert.equal(made.metadata.labels?.["apps.kubernetes.io/pod-index"], "2");
  assert.equal(made.metadata.labels?.["statefulset.kubernetes.io/pod-name"], "db-2");
  assert.equal(ordinalOf(sts(), made), 2);
  assert.equal(ordinalOf(sts(), { ...made, metadata: { name: "db-02" } } as KubeObject), undefined);
});

test("OrderedReady makes one pod at a time, each after the one before is Ready; Parallel makes all", () => {
  const set = sts();
  assert.deepEqual(planStatefulSet(set, []), { create: [0], remove: [] });
  assert.deepEqual(planStatefulSet(set, [pod(set, 0, false)]), { create: [], remove: [] });
  assert.deepEqual(planStatefulSet(set, [pod(set, 0)]), { create: [1], remove: [] });
  assert.deepEqual(planStatefulSet(sts({ podManagementPolicy: "Parallel" }), []), { create: [0, 1, 2], remove: [] });
  assert.deepEqual(planStatefulSet(sts({ ordinals: { start: 5 } }), []), { create: [5], remove: [] });
});

test("scale down removes the highest ordinal first, one at a time under OrderedReady", () => {
  const set = sts({ replicas: 1 });
  const pods = [pod(set, 0), pod(set, 1), pod(set, 2)];
  assert.deepEqual(names(planStatefulSet(set, pods).remove), ["db-2"]);
  const terminating = { ...pods[2], metadata: { ...pods[2]?.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } } as KubeObject;
  assert.deepEqual(names(planStatefulSet(set, [pods[0] as KubeObject, pods[1] as KubeObject, terminating]).remove), []);
  assert.deepEqual(names(planStatefulSet(sts({ replicas: 1, podManagementPolicy: "Parallel" }), pods).remove), ["db-2", "db-1"]);
});

test("a rolling update replaces the highest old pod first, down to the partition; OnDelete waits", () => {
  const set = sts();
  const old = [pod(set, 0, true, "db-old"), pod(set, 1, true, "db-old"), pod(set, 2, true, "db-old")];
  assert.deepEqual(names(planStatefulSet(set, old).remove), ["db-2"]);
  assert.deepEqual(names(planStatefulSet(set, [old[0] as KubeObject, old[1] as KubeObject, pod(set, 2)]).remove), ["db-1"]);
  assert.deepEqual(names(planStatefulSet(set, [old[0] as KubeObject, old[1] as KubeObject, pod(set, 2, false)]).remove), [], "waits for the updated pod to be Ready");
  assert.deepEqual(names(planStatefulSet(sts({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }), [old[0] as KubeObject, old[1] as KubeObject, pod(set, 2)]).remove), []);
  assert.deepEqual(planStatefulSet(sts({ updateStrategy: { type: "OnDelete" } }), old).remove, []);
});

test("status: counts and revisions; the current revision becomes the update revision once every pod is updated and Ready", () => {
  const set = sts({}, { currentRevision: "db-old" });
  const mid = statefulSetStatus(set, [pod(set, 0, true, "db-old"), pod(set, 1, true, "db-old"), pod(set, 2)]);
  assert.deepEqual(mid, { observedGeneration: 1, replicas: 3, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1, currentRevision: "db-old", updateRevision: updateRevision(set), collisionCount: 0, availableReplicas: 3 });
  const done = statefulSetStatus(set, [pod(set, 0), pod(set, 1), pod(set, 2)]);
  assert.equal(done.currentRevision, updateRevision(set));
  assert.equal(done.currentReplicas, 3);
});
