/**
 * Pods as real kubectl sees them on the sim: containers that follow their command, stop
 * on SIGTERM, write logs, and the events the scheduler and the kubelet record.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { present, waitFor } from "../../cli/wait.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "./kubectl.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

const skip = KUBECTL_SKIP;

let sim: RunningSim;
let dir: string;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-kubectl-pods-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: 2, heartbeatSeconds: 1 });
  kubectl = kubectlFor(join(dir, "kubeconfig"));
  await waitFor("2 nodes (nodes listed)", async () => (await sim.cluster.list({ apiVersion: "v1", kind: "Node" })).items.length, (nodes) => nodes === 2);
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface PodOptions {
  readonly command?: string[];
  readonly args?: string[];
  readonly containers?: Obj[];
  readonly restartPolicy?: string;
  readonly annotations?: Record<string, string>;
  readonly spec?: Obj;
}

async function createPod(name: string, options: PodOptions): Promise<void> {
  const container = { name: "c", image: "busybox:1.36", ...(options.command ? { command: options.command } : {}), ...(options.args ? { args: options.args } : {}) };
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, ...(options.annotations ? { annotations: options.annotations } : {}) },
    spec: { containers: options.containers ?? [container], ...(options.restartPolicy ? { restartPolicy: options.restartPolicy } : {}), ...options.spec },
  };
  await kubectl(["create", "-f", "-"], JSON.stringify(pod));
}

async function podJson(name: string): Promise<Obj> {
  return JSON.parse(await kubectl(["get", "pod", name, "-o", "json"])) as Obj;
}

async function phase(name: string, wanted: string, timeoutMs = 10_000): Promise<Obj> {
  return waitFor(`pod ${name} ${wanted}`, () => podJson(name), (pod) => pod.status?.phase === wanted, { timeoutMs, describe: (pod) => JSON.stringify(pod.status) });
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = Date.now();
  await run();
  return (Date.now() - start) / 1000;
}

/** kubectl's stderr for a command that must fail. */
async function failure(args: string[]): Promise<string> {
  try {
    await kubectl(args);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`kubectl ${args.join(" ")} succeeded`);
}

async function eventsOf(name: string): Promise<Obj[]> {
  const list = JSON.parse(await kubectl(["get", "events", "--field-selector", `involvedObject.name=${name}`, "-o", "json"])) as Obj;
  return list.items as Obj[];
}

test("kubectl delete pod returns in about a second: the container stops on SIGTERM", { skip }, async () => {
  await createPod("quick", { command: ["sleep", "3600"] });
  await phase("quick", "Running");
  const seconds = await timed(() => kubectl(["delete", "pod", "quick"]));
  assert.ok(seconds < 5, `delete took ${seconds} s`);
  assert.equal(await sim.cluster.find({ apiVersion: "v1", kind: "Pod" }, "default", "quick"), undefined);
  const killing = (await eventsOf("quick")).find((e) => e.reason === "Killing");
  assert.equal(killing?.message, "Stopping container c");
  assert.equal(killing?.type, "Normal");
  assert.equal(killing?.source?.component, "kubelet");
});

test("a slow shutdown (sim.edgeloop.dev/shutdown-seconds) is waited for, but never beyond the grace period", { skip }, async () => {
  await createPod("slow", { command: ["sleep", "3600"], annotations: { "sim.edgeloop.dev/shutdown-seconds": "3" } });
  await createPod("stubborn", { command: ["sleep", "3600"], annotations: { "sim.edgeloop.dev/shutdown-seconds": "20" }, spec: { terminationGracePeriodSeconds: 2 } });
  await phase("slow", "Running");
  await phase("stubborn", "Running");
  const slow = await timed(() => kubectl(["delete", "pod", "slow"]));
  assert.ok(slow >= 2.5 && slow < 8, `slow shutdown took ${slow} s (3 s wanted)`);
  const stubborn = await timed(() => kubectl(["delete", "pod", "stubborn"]));
  assert.ok(stubborn >= 1.5 && stubborn < 6, `a 20 s shutdown is killed at the 2 s grace period (took ${stubborn} s)`);
});

test("echo potato: the pod Succeeds and kubectl logs prints potato", { skip }, async () => {
  await createPod("potato", { command: ["echo", "potato"], restartPolicy: "Never" });
  const pod = await phase("potato", "Succeeded");
  assert.equal(pod.status.containerStatuses[0].state.terminated.exitCode, 0);
  assert.equal(pod.status.containerStatuses[0].state.terminated.reason, "Completed");
  assert.equal(await kubectl(["logs", "potato"]), "potato\n");
  assert.match(await kubectl(["get", "pod", "potato", "--no-headers"]), /^potato\s+0\/1\s+Completed\s/, "kubectl get shows Completed, as on a real cluster");
});

test("sleep 1 Succeeds after about a second; false Fails with exit code 1", { skip }, async () => {
  const created = Date.now();
  await createPod("nap", { command: ["sleep", "1"], restartPolicy: "Never" });
  await createPod("no", { command: ["false"], restartPolicy: "Never" });
  const running = await phase("nap", "Running");
  assert.equal(running.status.containerStatuses[0].state.running !== undefined, true);
  await phase("nap", "Succeeded");
  assert.ok(Date.now() - created >= 900, "not before its second is up");
  const failed = await phase("no", "Failed");
  assert.equal(failed.status.containerStatuses[0].state.terminated.exitCode, 1);
  assert.equal(failed.status.containerStatuses[0].state.terminated.reason, "Error");
  assert.match(await kubectl(["get", "pod", "no", "--no-headers"]), /^no\s+0\/1\s+Error\s/);
  assert.equal(await kubectl(["logs", "nap"]), "", "sleep writes nothing");
});

test("sh -c scripts: echo parts are logged, the script's sleep is waited, exit N is the exit code", { skip }, async () => {
  await createPod("script", { command: ["sh", "-c", "echo hi; sleep 1; echo bye; exit 3"], restartPolicy: "Never" });
  const failed = await phase("script", "Failed");
  assert.equal(failed.status.containerStatuses[0].state.terminated.exitCode, 3);
  assert.equal(await kubectl(["logs", "script"]), "hi\nbye\n");
  assert.equal(await kubectl(["logs", "script", "--tail=1"]), "bye\n");
  assert.match(await kubectl(["logs", "script", "--timestamps"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z hi\n\S+ bye\n$/);
});

test("kubectl logs -f streams until the container ends", { skip }, async () => {
  await createPod("stream", { command: ["sh", "-c", "echo first; sleep 2; echo second"], restartPolicy: "Never" });
  await phase("stream", "Running");
  const seconds = await timed(async () => assert.equal(await kubectl(["logs", "-f", "stream"]), "first\nsecond\n"));
  assert.ok(seconds >= 0.5, `follow returned after ${seconds} s, before the second line was written`);
});

test("a crash-looping container restarts, backs off, and keeps its previous log", { skip }, async () => {
  await createPod("crash", { command: ["sh", "-c", "echo attempt; exit 1"] });
  const looping = await waitFor("CrashLoopBackOff", () => podJson("crash"), (pod) => pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff", { describe: (pod) => JSON.stringify(pod.status?.containerStatuses) });
  const status = looping.status.containerStatuses[0];
  assert.equal(status.restartCount, 1, "the first restart is immediate, the next waits out the back-off");
  assert.equal(status.lastState.terminated.exitCode, 1);
  assert.match(status.state.waiting.message, /^back-off 10s restarting failed container=c pod=crash_default\(/);
  assert.equal(looping.status.phase, "Running");
  assert.match(await kubectl(["get", "pod", "crash"]), /crash\s+0\/1\s+CrashLoopBackOff\s+1/);
  assert.equal(await kubectl(["logs", "crash", "--previous"]), "attempt\n");
  const backOff = (await eventsOf("crash")).find((e) => e.reason === "BackOff");
  assert.equal(backOff?.type, "Warning");
  assert.match(backOff?.message ?? "", /^Back-off restarting failed container c in pod crash_default\(/);
  await kubectl(["delete", "pod", "crash", "--wait=false"]);
});

test("kubectl describe pod shows Scheduled, Pulled, Created, Started, and Killing once deleted", { skip }, async () => {
  await createPod("described", { command: ["sleep", "3600"], annotations: { "sim.edgeloop.dev/shutdown-seconds": "30" }, spec: { terminationGracePeriodSeconds: 60 } });
  await phase("described", "Running");
  const pod = await podJson("described");
  await kubectl(["delete", "pod", "described", "--wait=false"]);
  const described = await waitFor("Killing in describe", () => kubectl(["describe", "pod", "described"]), (text) => text.includes("Killing"));
  assert.match(described, new RegExp(`Normal\\s+Scheduled\\s+\\S+\\s+default-scheduler\\s+Successfully assigned default/described to ${pod.spec.nodeName as string}`));
  assert.match(described, /Normal\s+Pulled\s+\S+\s+kubelet\s+Container image "busybox:1.36" already present on machine/);
  assert.match(described, /Normal\s+Created\s+\S+\s+kubelet\s+Created container: c/);
  assert.match(described, /Normal\s+Started\s+\S+\s+kubelet\s+Started container c/);
  assert.match(described, /Normal\s+Killing\s+\S+\s+kubelet\s+Stopping container c/);
  await kubectl(["delete", "pod", "described", "--grace-period=0", "--force"]);
});

test("an unsatisfiable nodeSelector: FailedScheduling with kube-scheduler's message, once, not on every node heartbeat", { skip }, async () => {
  await createPod("nowhere", { command: ["sleep", "3600"], spec: { nodeSelector: { zone: "mars" } } });
  const expected = "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
  const failed = await waitFor("FailedScheduling (the pod's Event)", async () => (await eventsOf("nowhere")).find((e) => e.reason === "FailedScheduling"), present);
  assert.equal(failed.type, "Warning");
  assert.equal(failed.message, expected);
  assert.equal(failed.source.component, "default-scheduler");
  const pod = await podJson("nowhere");
  assert.equal(pod.status.conditions.find((c: Obj) => c.type === "PodScheduled").message, expected);
  assert.match(await kubectl(["describe", "pod", "nowhere"]), /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/2 nodes are available/);
  // Nodes heartbeat meanwhile; that is no reason to try again.
  const heartbeats = (await sim.cluster.list({ apiVersion: "v1", kind: "Node" })).items.map((n) => n.metadata.resourceVersion);
  await waitFor("a node heartbeat (the nodes' resourceVersions)", async () => (await sim.cluster.list({ apiVersion: "v1", kind: "Node" })).items.map((n) => n.metadata.resourceVersion), (now) => JSON.stringify(now) !== JSON.stringify(heartbeats));
  assert.equal((await eventsOf("nowhere")).filter((e) => e.reason === "FailedScheduling").length, 1);
  // A node that matches makes it schedulable.
  await kubectl(["label", "node", "sim-node-2", "zone=mars"]);
  await phase("nowhere", "Running");
  assert.ok((await eventsOf("nowhere")).some((e) => e.reason === "Scheduled" && e.message === "Successfully assigned default/nowhere to sim-node-2"));
  await kubectl(["label", "node", "sim-node-2", "zone-"]);
  await kubectl(["delete", "pod", "nowhere"]);
});

test("a pod pinned by node affinity to a node that does not exist: what kube-scheduler says", { skip }, async () => {
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["ghost"] }] }] } } };
  await createPod("pinned", { command: ["sleep", "3600"], spec: { affinity } });
  const failed = await waitFor("FailedScheduling (the pod's Event)", async () => (await eventsOf("pinned")).find((e) => e.reason === "FailedScheduling"), present);
  assert.equal(failed.message, "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  await kubectl(["delete", "pod", "pinned"]);
});

test("pods/log errors: several containers, unknown pod, a container not started yet", { skip }, async () => {
  await createPod("pair", { containers: [{ name: "a", image: "busybox:1.36", command: ["echo", "from a"] }, { name: "b", image: "busybox:1.36", command: ["echo", "from b"] }], restartPolicy: "Never" });
  await phase("pair", "Succeeded");
  assert.match(await failure(["get", "--raw", "/api/v1/namespaces/default/pods/pair/log"]), /a container name must be specified for pod pair, choose one of: \[a b\]/);
  assert.equal(await kubectl(["logs", "pair", "-c", "b"]), "from b\n");
  assert.match(await failure(["logs", "pair", "-c", "z"]), /container z is not valid for pod pair/);
  assert.match(await failure(["logs", "nope"]), /pods "nope" not found/);
  assert.match(await failure(["logs", "pair", "-c", "a", "--previous"]), /previous terminated container "a" in pod "pair" not found/);

  // A node whose kubelet is down never starts its pods.
  await kubectl(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: "parked", annotations: { "sim.edgeloop.dev/heartbeat": "stopped" } } }));
  await createPod("waiting", { command: ["echo", "never"], spec: { nodeName: "parked" } });
  assert.match(await failure(["logs", "waiting"]), /BadRequest.*container "c" in pod "waiting" is waiting to start: ContainerCreating/);
  await kubectl(["delete", "pod", "waiting", "--grace-period=0", "--force"]);
  await kubectl(["delete", "node", "parked"]);
});
