import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { daemonPod, daemonPodNode, placement, withDaemonTolerations } from "./daemon-pods.ts";
import { rollingVictims, survey } from "./daemonset.ts";

type Obj = Record<string, unknown>;

function ds(podSpec: Obj = {}, strategy: Obj = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } }): KubeObject {
  return { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "agent", namespace: "ns", uid: "u1", generation: 3, annotations: { "deprecated.daemonset.template.generation": "2" } }, spec: { updateStrategy: strategy, template: { metadata: { labels: { app: "agent" } }, spec: { containers: [{ name: "a", image: "x" }], ...podSpec } } } } as KubeObject;
}
const node = (name: string, labels: Record<string, string> = {}, taints: Obj[] = []): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name, labels }, spec: { taints } }) as KubeObject;
const readyPod = (name: string, nodeName: string, hash: string, ready = true): KubeObject =>
  ({ apiVersion: "v1", kind: "Pod", metadata: { name, labels: { "controller-revision-hash": hash }, creationTimestamp: "2026-01-01T00:00:00Z" }, spec: { nodeName }, status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] } }) as KubeObject;

test("placement: nodeSelector and taints decide; NoSchedule taints keep running pods, NoExecute ones do not; node problems are tolerated by default", () => {
  assert.deepEqual(placement(ds({ nodeSelector: { edge: "yes" } }), node("n", { edge: "no" })), { shouldRun: false, shouldContinueRunning: false });
  assert.deepEqual(placement(ds(), node("n", {}, [{ key: "k", effect: "NoSchedule" }])), { shouldRun: false, shouldContinueRunning: true });
  assert.deepEqual(placement(ds(), node("n", {}, [{ key: "k", effect: "NoExecute" }])), { shouldRun: false, shouldContinueRunning: false });
  assert.deepEqual(placement(ds({ tolerations: [{ key: "k", operator: "Exists" }] }), node("n", {}, [{ key: "k", effect: "NoExecute" }])), { shouldRun: true, shouldContinueRunning: true });
  assert.equal(placement(ds(), node("n", {}, [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }, { key: "node.kubernetes.io/not-ready", effect: "NoExecute" }])).shouldRun, true);
  assert.equal(placement(ds({ nodeName: "other" }), node("n")).shouldRun, false);
});

test("the daemon tolerations are added once; hostNetwork adds network-unavailable", () => {
  const have = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" };
  assert.equal(withDaemonTolerations({ tolerations: [have] }).length, 6);
  assert.equal(withDaemonTolerations({ hostNetwork: true }).length, 7);
});

test("a daemon pod is pinned to its node by matchFields, keeping the template's affinity terms", () => {
  const pod = daemonPod(ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "a", operator: "Exists" }] }] } } } }), "n1");
  assert.deepEqual((pod as unknown as { spec: { affinity: unknown } }).spec.affinity, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "a", operator: "Exists" }], matchFields: [{ key: "metadata.name", operator: "In", values: ["n1"] }] }] } } });
  assert.equal(pod.metadata.labels?.["pod-template-generation"], "2");
  assert.equal(daemonPodNode(pod), "n1");
});

test("survey: creates where missing, deletes extras, failed pods, pods where the DaemonSet no longer runs and on nodes that are gone", () => {
  const failed = { ...readyPod("f", "n2", "h"), status: { phase: "Failed" } } as KubeObject;
  const found = survey(ds({ nodeSelector: { run: "yes" } }), [node("n1", { run: "yes" }), node("n2", { run: "yes" }), node("n3")], [readyPod("a", "n1", "h"), { ...readyPod("b", "n1", "h"), metadata: { name: "b", creationTimestamp: "2026-01-02T00:00:00Z" } } as KubeObject, failed, readyPod("c", "n3", "h"), readyPod("d", "gone", "h")]);
  assert.deepEqual(found.create, []);
  assert.deepEqual(found.remove.map((p) => p.metadata.name).sort(), ["b", "c", "d", "f"]);
  assert.equal(found.desired, 2);
  assert.equal(found.misscheduled, 1);
  assert.deepEqual(survey(ds(), [node("n1")], []).create, ["n1"]);
});

test("rolling update: unavailable old pods at once, available ones within maxUnavailable; OnDelete waits", () => {
  const kept = [readyPod("a", "n1", "old"), readyPod("b", "n2", "old"), readyPod("c", "n3", "old", false)];
  assert.deepEqual(rollingVictims(ds(), kept, 3, "new").map((p) => p.metadata.name), ["c"]);
  assert.deepEqual(rollingVictims(ds({}, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } }), kept, 3, "new").map((p) => p.metadata.name), ["c", "a"]);
  assert.deepEqual(rollingVictims(ds({}, { type: "OnDelete" }), kept, 3, "new"), []);
});
