/**
 * Edge autonomy end to end on the local stack, with real kubectl: an edge node whose
 * heartbeat stops keeps its pods, and their Service endpoints, for its
 * `autonomy-duration`, then they are evicted and leave the endpoints; with `0` never; a
 * pod failing its own readiness on a Ready autonomous node leaves the endpoints; a bad
 * duration and a duration set while the edge hub's cache fails are refused; a whole pool
 * down keeps its pods until one node is back. Every wait is a condition with a deadline.
 * On both targets (`npm run test:cluster -- autonomy`): on the real control plane a
 * stopped heartbeat stops the node's kwok, the real node-lifecycle controller taints it
 * and marks its pods not ready, the real taint manager evicts, and the real Endpoints and
 * EndpointSlice controllers' writes pass through the webhooks.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { present, waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "../sim/kubectl.ts";
import { waitForGone, waitForObject } from "../support/cluster-waits.ts";
import { e2eStack, TARGET, type E2EStack } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const ENDPOINTS = { apiVersion: "v1", kind: "Endpoints" };
const SLICE = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" };
const EVENT = { apiVersion: "v1", kind: "Event" };
const SERVICE_ACCOUNT = { apiVersion: "v1", kind: "ServiceAccount" };
const NS = "shop";
const DURATION = "node.openyurt.io/autonomy-duration";
const skip = KUBECTL_SKIP;
/**
 * The node grace period: a node without a heartbeat for this long is unreachable. The
 * real node-lifecycle controller looks every 5 s (node-monitor-period) and kwok renews
 * its Lease every quarter of it: 10 s there keeps both well apart.
 */
const GRACE_SECONDS = TARGET === "cluster" ? 10 : 3;
const WAIT_MS = 60_000;

let stack: E2EStack;
let kubectl: Kubectl;

before(async () => {
  if (skip) return;
  stack = await e2eStack({ nodes: ["edge-a", "edge-b", "edge-c", "pool-1", "pool-2", "cloud"], nodeGraceSeconds: GRACE_SECONDS });
  kubectl = kubectlFor(stack.kubeconfigPath);
  await kubectl(["label", "node", "edge-a", "edge-b", "edge-c", "pool-1", "pool-2", "openyurt.io/is-edge-worker=true"]);
  await kubectl(["label", "node", "pool-1", "pool-2", "apps.openyurt.io/nodepool=hangzhou"]);
  await kubectl(["create", "namespace", NS]);
  // A real API server refuses pods in a namespace until its ServiceAccount controller has
  // created the `default` ServiceAccount there (the sim has no ServiceAccount admission).
  if (TARGET === "cluster") await waitForObject(stack.cluster, SERVICE_ACCOUNT, NS, "default", () => true, WAIT_MS);
  await kubectl(["create", "service", "clusterip", "web", "-n", NS, "--tcp=80:80"]);
  // `kubectl create service` selects app=web.
});

after(async () => {
  if (skip) return;
  await stack.stop();
});

/** A pod of the Service on `node`, optionally failing its readiness probe. */
function webPod(name: string, node: string, failsReadiness = false): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS, labels: { app: "web" } },
    spec: {
      nodeSelector: { "kubernetes.io/hostname": node },
      terminationGracePeriodSeconds: 0,
      containers: [{ name: "web", image: "nginx", ports: [{ containerPort: 80 }], ...(failsReadiness ? { readinessProbe: { exec: { command: ["false"] }, periodSeconds: 1 } } : {}) }],
    },
  } as KubeObject;
}

async function pod(name: string): Promise<Obj | undefined> {
  return (await stack.cluster.find(POD, NS, name)) as Obj | undefined;
}

/** The `tolerationSeconds` of the pod's not-ready and unreachable tolerations ("none" when a toleration has no seconds). */
function seconds(object: Obj | undefined): string[] {
  return ((object?.spec.tolerations ?? []) as Obj[])
    .filter((t) => t.effect === "NoExecute" && (t.key === "node.kubernetes.io/not-ready" || t.key === "node.kubernetes.io/unreachable"))
    .map((t) => `${String(t.key).split("/")[1]}=${t.tolerationSeconds ?? "none"}`)
    .sort();
}

async function waitForSeconds(name: string, expected: string[]): Promise<Obj> {
  return (await waitForObject(stack.cluster, POD, NS, name, (found) => JSON.stringify(seconds(found)) === JSON.stringify(expected), WAIT_MS)) as Obj;
}

/** The IPs the Service's Endpoints lists as ready and as not ready. */
async function endpoints(): Promise<{ ready: string[]; notReady: string[] }> {
  const object = (await stack.cluster.find(ENDPOINTS, NS, "web")) as Obj | undefined;
  const subsets = (object?.subsets ?? []) as Obj[];
  const ips = (key: string): string[] => subsets.flatMap((s) => ((s[key] ?? []) as Obj[]).map((a) => String(a.ip))).sort();
  return { ready: ips("addresses"), notReady: ips("notReadyAddresses") };
}

/** The EndpointSlice `ready` condition of each address of the Service. */
async function sliceReady(): Promise<Record<string, boolean>> {
  const slices = (await stack.cluster.list(SLICE, { namespace: NS, labelSelector: "kubernetes.io/service-name=web" })).items as Obj[];
  return Object.fromEntries(slices.flatMap((s) => ((s.endpoints ?? []) as Obj[]).map((e) => [String(e.addresses?.[0]), e.conditions?.ready !== false])));
}

async function running(name: string): Promise<string> {
  const object = (await waitForObject(stack.cluster, POD, NS, name, (found: Obj) => found.status?.conditions?.some((c: Obj) => c.type === "Ready" && c.status === "True") === true, WAIT_MS)) as Obj;
  return String(object.status.podIP);
}

/**
 * kwok runs no probes (it reports every running pod Ready): on the real control plane the
 * pod's failing readiness is reported as its kubelet reports it, through the status subresource.
 */
async function reportReadinessFailing(name: string): Promise<void> {
  const now = new Date().toISOString();
  const unready = { status: "False", reason: "ContainersNotReady", message: "containers with unready status: [web]", lastTransitionTime: now };
  const status = { conditions: [{ type: "Ready", ...unready }, { type: "ContainersReady", ...unready }], containerStatuses: [{ name: "web", ready: false }] };
  await stack.cluster.patch(POD, NS, name, { status }, "strategic", { subresource: "status" });
}

async function nodeEvents(node: string, reason: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace: "default" })).items as Obj[]).filter((e) => e.involvedObject?.kind === "Node" && e.involvedObject?.name === node && e.reason === reason);
}

/** The taint manager's `TaintManagerEviction` Events marking the pod for deletion. */
async function evictionEvents(name: string): Promise<Obj[]> {
  return ((await stack.cluster.list(EVENT, { namespace: NS })).items as Obj[]).filter((e) => e.involvedObject?.name === name && e.reason === "TaintManagerEviction" && String(e.message).startsWith("Marking for deletion"));
}

/** When the node got its unreachable NoExecute taint (ms), once it has it. */
async function taintedAt(node: string): Promise<number> {
  const unreachable = (t: Obj): boolean => t.key === "node.kubernetes.io/unreachable" && t.effect === "NoExecute";
  const taints = await waitFor(`${node} tainted unreachable (its taints)`, async () => (((await stack.cluster.find(NODE, undefined, node)) as Obj | undefined)?.spec.taints ?? []) as Obj[], (seen) => seen.some(unreachable), { timeoutMs: WAIT_MS });
  return Date.parse(String(taints.find(unreachable)?.timeAdded));
}

test("autonomy-duration 20s: the pods of a node that stops heartbeating stay, and stay in their endpoints, for 20 s, then go; with 0 they never do", { skip }, async () => {
  await kubectl(["annotate", "node", "edge-a", `${DURATION}=20s`]);
  await kubectl(["annotate", "node", "edge-b", `${DURATION}=0`]);
  await stack.cluster.create(webPod("web-a", "edge-a"));
  await stack.cluster.create(webPod("web-b", "edge-b"));
  await stack.cluster.create(webPod("web-x", "cloud"));
  const [ipA, ipB, ipX] = [await running("web-a"), await running("web-b"), await running("web-x")];
  // Created unbound: the controller sets the seconds once the pod is bound, keeping the originals.
  const a = await waitForSeconds("web-a", ["not-ready=20", "unreachable=20"]);
  assert.equal(a.metadata.annotations["apps.openyurt.io/original-unreachable-toleration-duration"], "300");
  await waitForSeconds("web-b", ["not-ready=none", "unreachable=none"]);
  await waitFor("all three in the endpoints", endpoints, (listed) => listed.ready.length === 3, { timeoutMs: WAIT_MS });

  await kubectl(["annotate", "node", "edge-a", "edge-b", "sim.edgeloop.dev/heartbeat=stopped"]);
  const tainted = await taintedAt("edge-a");
  await waitFor(
    "the pods marked not Ready by the node lifecycle (their Ready conditions)",
    async () => [await pod("web-a"), await pod("web-b")].map((p) => (p?.status?.conditions ?? []).find((c: Obj) => c.type === "Ready") as Obj | undefined),
    (ready) => ready.every((c) => c?.status === "False"),
    { timeoutMs: WAIT_MS },
  );
  // A change both endpoints controllers act on, made after the pods went not ready: a pod
  // of a Ready node leaves. Once it is gone from the Endpoints and the EndpointSlices, both
  // have been written from a pod cache in which web-a and web-b are not ready (one watch,
  // in order), so the addresses still ready are the webhook's doing, not an earlier write.
  await stack.cluster.delete(POD, NS, "web-x");
  await waitFor(
    "web-x gone from the Endpoints and the EndpointSlices",
    async () => ({ endpoints: await endpoints(), slices: await sliceReady() }),
    (seen) => ![...seen.endpoints.ready, ...seen.endpoints.notReady].includes(ipX) && !(ipX in seen.slices),
    { timeoutMs: WAIT_MS },
  );
  const during = await endpoints();
  assert.deepEqual(during, { ready: [ipA, ipB].sort(), notReady: [] }, "kept ready during the autonomy period");
  assert.deepEqual(await sliceReady(), { [ipA]: true, [ipB]: true });

  await waitForGone(stack.cluster, POD, NS, "web-a", WAIT_MS);
  const evictedAfter = (Date.now() - tainted) / 1000;
  assert.ok(evictedAfter >= 19, `evicted ${evictedAfter.toFixed(1)} s after the taint, not before the 20 s period`);
  // By the taint manager (the Event it records before it deletes), not by anything of ours.
  await waitFor("the taint manager's eviction Event of web-a (those recorded)", () => evictionEvents("web-a"), (events) => events.length === 1, { timeoutMs: WAIT_MS });
  await waitFor("web-a gone from the endpoints", endpoints, (listed) => !listed.ready.includes(ipA), { timeoutMs: WAIT_MS });
  assert.ok(await pod("web-b"), "web-b (autonomy-duration 0) is never evicted");
  assert.deepEqual(await evictionEvents("web-b"), [], "nor marked for deletion");
  assert.deepEqual((await endpoints()).ready, [ipB], "and stays in the endpoints");
  await kubectl(["annotate", "node", "edge-b", "sim.edgeloop.dev/heartbeat-"]);
});

test("a pod failing its readiness on a Ready autonomous node leaves the endpoints (its readiness decides)", { skip }, async () => {
  await kubectl(["annotate", "node", "edge-c", `${DURATION}=10m`]);
  await stack.cluster.create(webPod("web-c", "edge-c", true));
  const ip = await waitFor("web-c running (its podIP)", async () => (await pod("web-c"))?.status?.podIP as string | undefined, present, { timeoutMs: WAIT_MS });
  if (TARGET === "cluster") await reportReadinessFailing("web-c");
  await waitFor("web-c listed not ready", endpoints, (listed) => listed.notReady.includes(ip), { timeoutMs: WAIT_MS });
  await waitFor("web-c's slice endpoint not ready", sliceReady, (ready) => ready[ip] === false, { timeoutMs: WAIT_MS });
  assert.equal((await endpoints()).ready.includes(ip), false, "the webhook did not flip it: the node is Ready");
  await stack.cluster.delete(POD, NS, "web-c");
});

test("a bad duration is refused saying what a valid one looks like; while the edge hub's cache fails the annotation is refused, with Events when it fails and recovers", { skip }, async () => {
  // Go's time.ParseDuration refuses it (past 2562047h): no tolerationSeconds beyond int64 (issue 28).
  await assert.rejects(kubectl(["annotate", "node", "edge-c", `${DURATION}=9999999h`, "--overwrite"]), /denied the request: node\.openyurt\.io\/autonomy-duration: "9999999h" is out of range: Go's durations end at 2562047h47m16\.854775807s/);
  await assert.rejects(kubectl(["annotate", "node", "edge-c", `${DURATION}=10d`, "--overwrite"]), /admission webhook "autonomy-nodes\.edgeloop\.dev" denied the request: .*"10d" is not a duration \(unknown unit "d"\); expected a Go duration such as "30s", "10m", "1h30m" or "0" \(never evict\)/);
  const failed = { status: { conditions: [{ type: "Autonomy", status: "Unknown", reason: "cache failed", message: "failed keys: pods/shop/web-c", lastTransitionTime: new Date().toISOString() }] } };
  await kubectl(["patch", "node", "edge-c", "--subresource=status", "--type=strategic", "-p", JSON.stringify(failed)]);
  await waitFor("AutonomyCacheFailed (those recorded)", () => nodeEvents("edge-c", "AutonomyCacheFailed"), (events) => events.length === 1, { timeoutMs: WAIT_MS });
  await assert.rejects(kubectl(["annotate", "node", "edge-c", `${DURATION}=5m`, "--overwrite"]), /cache/);
  assert.equal((await stack.cluster.find(NODE, undefined, "edge-c"))?.metadata.annotations?.[DURATION], "10m", "unchanged");
  const back = { status: { conditions: [{ type: "Autonomy", status: "True", reason: "autonomy enabled successfully", message: "", lastTransitionTime: new Date().toISOString() }] } };
  await kubectl(["patch", "node", "edge-c", "--subresource=status", "--type=strategic", "-p", JSON.stringify(back)]);
  await waitFor("AutonomyCacheRecovered (those recorded)", () => nodeEvents("edge-c", "AutonomyCacheRecovered"), (events) => events.length === 1, { timeoutMs: WAIT_MS });
  await kubectl(["annotate", "node", "edge-c", `${DURATION}=5m`, "--overwrite"]);
});

test("a whole pool down keeps its pods past their duration; when one node is back, the durations apply again", { skip }, async () => {
  await kubectl(["annotate", "node", "pool-1", "pool-2", `${DURATION}=10s`]);
  await stack.cluster.create(webPod("p-1", "pool-1"));
  await stack.cluster.create(webPod("p-2", "pool-2"));
  await running("p-1");
  await running("p-2");
  await waitForSeconds("p-2", ["not-ready=10", "unreachable=10"]);
  await kubectl(["annotate", "node", "pool-1", "pool-2", "sim.edgeloop.dev/heartbeat=stopped"]);
  const tainted = await taintedAt("pool-2");
  await waitFor("PoolOutage on both nodes (those recorded on each)", async () => [(await nodeEvents("pool-1", "PoolOutage")).length, (await nodeEvents("pool-2", "PoolOutage")).length], (counts) => counts.every((n) => n === 1), { timeoutMs: WAIT_MS });
  await waitForSeconds("p-1", ["not-ready=none", "unreachable=none"]);
  await waitForSeconds("p-2", ["not-ready=none", "unreachable=none"]);
  // Past the 10 s period (and a node-lifecycle pass after it), both pods are still there:
  // a negative outcome, so this one wait is for time itself to pass.
  await waitFor("the period over (now)", () => Date.now(), (now) => now > tainted + 13_000, { timeoutMs: WAIT_MS });
  assert.ok((await pod("p-1")) && (await pod("p-2")), "kept through the whole pool's outage");
  // pool-1 is back: p-2's node is alone down, its 10 s apply again (counted from now).
  await kubectl(["annotate", "node", "pool-1", "sim.edgeloop.dev/heartbeat-"]);
  await waitFor("PoolRecovered (those recorded)", () => nodeEvents("pool-2", "PoolRecovered"), (events) => events.length === 1, { timeoutMs: WAIT_MS });
  await waitForSeconds("p-2", ["not-ready=10", "unreachable=10"]);
  await waitForGone(stack.cluster, POD, NS, "p-2", WAIT_MS);
  assert.ok(await pod("p-1"), "p-1's node is Ready: it stays");
});
