/** The sim's built-in controllers, observed through the in-process API as a client would. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { HEARTBEAT_ANNOTATION } from "../../sim/controllers/nodes.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { waitForGone, waitForObject } from "../support/cluster-waits.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

let sim: RunningSim;
const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };

before(async () => {
  // Short node grace so the lifecycle runs in test time.
  sim = await startSim({ port: 0, nodes: ["n1", "n2"], nodeGraceSeconds: 2, heartbeatSeconds: 0.25 });
  await waitFor("2 nodes (nodes listed)", async () => (await sim.cluster.list(NODE)).items.length, (nodes) => nodes === 2);
});

after(async () => {
  await sim.stop();
});

function pod(name: string, spec: Obj = {}, metadata: Obj = {}): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", ...metadata }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "c", image: "busybox" }], ...spec } } as KubeObject;
}

async function podWhen(name: string, ok: (p: Obj) => boolean, timeoutMs = 10_000): Promise<Obj> {
  return (await waitForObject(sim.cluster, POD, "default", name, ok, timeoutMs)) as Obj;
}

const ready = (p: Obj): boolean => (p.status?.conditions ?? []).some((c: Obj) => c.type === "Ready" && c.status === "True");

test("the scheduler binds to a fitting node; the kubelet runs the pod to Ready", async () => {
  await sim.cluster.create(pod("web", { nodeSelector: { "kubernetes.io/hostname": "n2" } }));
  const running = await podWhen("web", (p) => p.status?.phase === "Running" && ready(p));
  assert.equal(running.spec.nodeName, "n2", "the nodeSelector is honoured");
  assert.equal(running.status.containerStatuses[0].ready, true);
  assert.match(running.status.podIP, /^10\.244\./);
});

test("pods of another scheduler stay Pending; untolerated taints and impossible selectors are not bound", async () => {
  await sim.cluster.create(pod("custom", { schedulerName: "fluxnetes" }));
  await sim.cluster.create(pod("nowhere", { nodeSelector: { zone: "mars" } }));
  const scheduled = await podWhen("nowhere", (p) => (p.status?.conditions ?? []).some((c: Obj) => c.type === "PodScheduled" && c.status === "False"));
  assert.match(scheduled.status.conditions.find((c: Obj) => c.type === "PodScheduled").message, /didn't match/);
  const custom = (await sim.cluster.get(POD, "default", "custom")) as Obj;
  assert.equal(custom.spec.nodeName, undefined, "left for its own scheduler");
  assert.equal(custom.status?.phase ?? "Pending", "Pending");
});

test("run-seconds and exit-code finish containers under the restartPolicy", async () => {
  await sim.cluster.create(pod("ok", { restartPolicy: "Never" }, { annotations: { "sim.edgeloop.dev/run-seconds": "0.2" } }));
  await sim.cluster.create(pod("bad", { restartPolicy: "Never" }, { annotations: { "sim.edgeloop.dev/run-seconds": "0.2", "sim.edgeloop.dev/exit-code": "3" } }));
  await sim.cluster.create(pod("again", { restartPolicy: "Always" }, { annotations: { "sim.edgeloop.dev/run-seconds": "0.2", "sim.edgeloop.dev/exit-code": "1" } }));
  await podWhen("ok", (p) => p.status?.phase === "Succeeded");
  const bad = await podWhen("bad", (p) => p.status?.phase === "Failed");
  assert.equal(bad.status.containerStatuses[0].state.terminated.exitCode, 3);
  await podWhen("again", (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 && p.status?.phase === "Running");
});

test("a node that stops heartbeating goes Unknown, is tainted unreachable, its pods NotReady then evicted per toleration", async () => {
  await sim.cluster.create(pod("short", { nodeName: "n1", tolerations: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 1 }] }));
  await sim.cluster.create(pod("long", { nodeName: "n1" }));
  await podWhen("short", ready);
  await podWhen("long", ready);
  await sim.cluster.patch(NODE, undefined, "n1", { metadata: { annotations: { [HEARTBEAT_ANNOTATION]: "stopped" } } }, "merge");
  const node = (await waitForObject(sim.cluster, NODE, undefined, "n1", (n: Obj) => {
    const condition = n.status.conditions.find((c: Obj) => c.type === "Ready");
    const taints = (n.spec.taints ?? []).map((t: Obj) => `${t.key}:${t.effect}`);
    return condition.status === "Unknown" && taints.includes("node.kubernetes.io/unreachable:NoExecute");
  })) as Obj;
  assert.ok(node.spec.taints.some((t: Obj) => t.key === "node.kubernetes.io/unreachable" && t.effect === "NoSchedule"));
  await podWhen("long", (p) => !ready(p), 15_000);
  await waitForGone(sim.cluster, POD, "default", "short");
  assert.ok(await sim.cluster.find(POD, "default", "long"), "the 300 s default toleration keeps the other pod");

  await sim.cluster.patch(NODE, undefined, "n1", { metadata: { annotations: { [HEARTBEAT_ANNOTATION]: null } } }, "merge");
  await waitForObject(sim.cluster, NODE, undefined, "n1", (n: Obj) => n.status.conditions.find((c: Obj) => c.type === "Ready").status === "True" && (n.spec.taints ?? []).length === 0);
  await podWhen("long", ready);
});

test("Services get Endpoints and EndpointSlices of their ready pods", async () => {
  await sim.cluster.create(pod("ep-1", {}, { labels: { app: "ep" } }));
  await sim.cluster.create({ apiVersion: "v1", kind: "Service", metadata: { name: "ep", namespace: "default" }, spec: { selector: { app: "ep" }, ports: [{ port: 80, targetPort: 8080 }] } } as KubeObject);
  const endpoints = (await waitForObject(sim.cluster, { apiVersion: "v1", kind: "Endpoints" }, "default", "ep", (e: Obj) => e.subsets?.[0]?.addresses?.length === 1, 10_000)) as Obj;
  assert.equal(endpoints.subsets[0].ports[0].port, 8080);
  const slices = await sim.cluster.list({ apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" }, { namespace: "default", labelSelector: "kubernetes.io/service-name=ep" });
  assert.equal(slices.items.length, 1);
});

test("Endpoints follow selectors: shared and specific labels, relabelled and deleted pods, other namespaces", async () => {
  const service = (name: string, selector: Record<string, string>, namespace = "default"): KubeObject => ({ apiVersion: "v1", kind: "Service", metadata: { name, namespace }, spec: { selector, ports: [{ port: 80 }] } }) as KubeObject;
  const addressesOf = async (name: string, namespace = "default"): Promise<string[]> => {
    const e = (await sim.cluster.find({ apiVersion: "v1", kind: "Endpoints" }, namespace, name)) as Obj | undefined;
    return ((e?.subsets?.[0]?.addresses ?? []) as Obj[]).map((a) => String(a.targetRef.name)).sort();
  };
  const expect = (name: string, pods: string[], namespace = "default"): Promise<unknown> =>
    waitFor(`${name} → ${pods.join(",")} (its addresses)`, () => addressesOf(name, namespace), (addresses) => JSON.stringify(addresses) === JSON.stringify(pods));
  await sim.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } } as KubeObject);
  await sim.cluster.create(service("team-a", { tier: "web", team: "a" }));
  await sim.cluster.create(service("team-b", { tier: "web", team: "b" }));
  await sim.cluster.create(service("web", { tier: "web" }));
  await sim.cluster.create(service("team-a", { tier: "web", team: "a" }, "other"));
  await sim.cluster.create(pod("pa", {}, { labels: { tier: "web", team: "a" } }));
  await sim.cluster.create(pod("pb", {}, { labels: { tier: "web", team: "b" } }));
  await sim.cluster.create({ ...pod("po", {}, { labels: { tier: "web", team: "a" } }), metadata: { name: "po", namespace: "other", labels: { tier: "web", team: "a" } } } as KubeObject);
  await expect("team-a", ["pa"]);
  await expect("team-b", ["pb"]);
  await expect("web", ["pa", "pb"]);
  await expect("team-a", ["po"], "other");
  await sim.cluster.patch(POD, "default", "pb", { metadata: { labels: { team: "a" } } }, "merge");
  await expect("team-a", ["pa", "pb"]);
  await expect("team-b", []);
  await sim.cluster.delete(POD, "default", "pa");
  await expect("team-a", ["pb"]);
  await expect("web", ["pb"]);
});
