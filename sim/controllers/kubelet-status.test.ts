import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { RUNS_UNTIL_STOPPED } from "./container-command.ts";
import { goDuration, phaseOf, podStatus, readinessFails, runFromStatus, type ContainerRun, type PodRun, type Termination } from "./kubelet-status.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const ended = (exitCode: number): Termination => ({ exitCode, reason: exitCode === 0 ? "Completed" : "Error", startedAt: T0, finishedAt: T0 + 1000, containerID: "sim://old" });
const container = (name: string, state: Partial<ContainerRun> = {}): ContainerRun => ({
  name,
  image: "busybox",
  program: RUNS_UNTIL_STOPPED,
  restartCount: 0,
  containerID: `sim://${name}`,
  startedAt: T0,
  ended: undefined,
  last: undefined,
  backoffUntil: undefined,
  backoffMs: 0,
  backoffUpdated: 0,
  ...state,
});
const run = (...containers: ContainerRun[]): PodRun => ({ uid: "u", containers, podIP: "10.244.0.2", hostIP: "192.168.0.2", startTime: T0, stopping: undefined });
const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", uid: "u" }, spec: {}, status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True" }] } } as KubeObject;

test("the phase as the kubelet's getPhase decides it", () => {
  assert.equal(phaseOf(run(container("a"), container("b", { ended: ended(0) })), "Never"), "Running", "one still runs");
  assert.equal(phaseOf(run(container("a", { ended: ended(0) })), "Never"), "Succeeded");
  assert.equal(phaseOf(run(container("a", { ended: ended(0) }), container("b", { ended: ended(2) })), "Never"), "Failed");
  assert.equal(phaseOf(run(container("a", { ended: ended(1) })), "OnFailure"), "Running", "it will be restarted");
  assert.equal(phaseOf(run(container("a", { ended: ended(0) })), "OnFailure"), "Succeeded");
  assert.equal(phaseOf(run(container("a", { ended: ended(0) })), "Always"), "Running");
});

test("statuses: running, terminated, and waiting in CrashLoopBackOff with the last state", () => {
  const status = podStatus(pod, run(container("a"), container("b", { ended: ended(1), backoffUntil: T0 + 11_000, backoffMs: 10_000, restartCount: 1, last: ended(1) })), T0 + 2000);
  const [a, b] = status.containerStatuses as Record<string, unknown>[];
  assert.deepEqual(a, { name: "a", state: { running: { startedAt: "2026-01-01T00:00:00Z" } }, lastState: {}, ready: true, restartCount: 0, image: "busybox", imageID: "sim://busybox", containerID: "sim://a", started: true });
  assert.deepEqual(b?.state, { waiting: { reason: "CrashLoopBackOff", message: "back-off 10s restarting failed container=b pod=p_ns(u)" } });
  assert.deepEqual(b?.lastState, { terminated: { exitCode: 1, reason: "Error", startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:00:01Z", containerID: "sim://old" } });
  assert.equal(status.phase, "Running");
  const ready = (status.conditions as Record<string, unknown>[]).find((c) => c.type === "Ready");
  assert.deepEqual(ready, { type: "Ready", status: "False", lastProbeTime: null, lastTransitionTime: "2026-01-01T00:00:02Z", reason: "ContainersNotReady", message: "containers with unready status: [b]" });
  assert.deepEqual((status.conditions as Record<string, unknown>[]).map((c) => c.type), ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"], "the scheduler's condition is kept");
});

test("a condition keeps its transition time while its status holds", () => {
  const first = podStatus(pod, run(container("a")), T0);
  const again = podStatus({ ...pod, status: first } as KubeObject, run(container("a")), T0 + 60_000);
  assert.deepEqual(again, first);
});

test("a pod reported before a restart of the sim goes on from its status", () => {
  const spec = { containers: [{ name: "a", image: "busybox" }, { name: "b", image: "busybox" }] };
  const before = run(container("a", { restartCount: 2, last: ended(1) }), container("b", { ended: ended(0) }));
  const reported = { ...pod, spec, status: podStatus({ ...pod, spec } as KubeObject, before, T0 + 5000) } as KubeObject;
  const adopted = runFromStatus(reported, () => RUNS_UNTIL_STOPPED);
  assert.ok(adopted);
  assert.deepEqual(podStatus(reported, adopted, T0 + 9000), reported.status as Record<string, unknown>, "the same status, IPs and times");
  assert.equal(adopted.containers[0]?.restartCount, 2);
  assert.equal(runFromStatus(pod, () => RUNS_UNTIL_STOPPED), undefined, "nothing reported yet");
});

test("durations as Go prints them", () => {
  assert.deepEqual([10_000, 80_000, 160_000, 300_000].map(goDuration), ["10s", "1m20s", "2m40s", "5m0s"]);
});

test("a readiness probe whose exec command fails keeps a running container not ready; others pass", () => {
  const pod = (probe: unknown): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx", ...(probe === undefined ? {} : { readinessProbe: probe }) }] } }) as KubeObject;
  assert.equal(readinessFails(pod({ exec: { command: ["false"] } }), "c"), true);
  assert.equal(readinessFails(pod({ exec: { command: ["sh", "-c", "exit 3"] } }), "c"), true);
  assert.equal(readinessFails(pod({ exec: { command: ["true"] } }), "c"), false);
  assert.equal(readinessFails(pod({ exec: { command: ["cat", "/tmp/healthy"] } }), "c"), false, "a command the sim cannot tell passes");
  assert.equal(readinessFails(pod({ httpGet: { path: "/", port: 80 } }), "c"), false);
  assert.equal(readinessFails(pod(undefined), "c"), false);
});
