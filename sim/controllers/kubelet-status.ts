/**
 * The simulated kubelet's view of a pod's containers, and the pod status it reports from
 * it: container states (running, terminated, waiting in CrashLoopBackOff), the phase as
 * the kubelet's getPhase decides it, and the conditions the kubelet owns. Pure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { interpret, type ContainerProgram } from "./container-command.ts";
import { arr, obj, type Obj } from "./runtime.ts";

/** How a container instance ended. */
export interface Termination {
  readonly exitCode: number;
  readonly reason: "Completed" | "Error";
  /** Epoch ms. */
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly containerID: string;
}

/** One container of a pod, as the kubelet runs it. */
export interface ContainerRun {
  readonly name: string;
  readonly image: string;
  readonly program: ContainerProgram;
  restartCount: number;
  containerID: string;
  /** Start of the current instance (epoch ms). */
  startedAt: number;
  /** How the current instance ended; undefined while it runs. */
  ended: Termination | undefined;
  /** How the instance before it ended (`lastState`). */
  last: Termination | undefined;
  /** While crash-looping: when the next start may happen (epoch ms). */
  backoffUntil: number | undefined;
  /** The current back-off window (0: none yet) and when it was last widened, as client-go's flowcontrol.Backoff keeps them. */
  backoffMs: number;
  backoffUpdated: number;
}

/** A pod the kubelet has started. */
export interface PodRun {
  readonly uid: string;
  readonly containers: ContainerRun[];
  readonly podIP: string;
  readonly hostIP: string;
  /** Epoch ms. */
  readonly startTime: number;
  /** Being deleted: SIGTERM went out at `since`; SIGKILL comes at `deadline` (epoch ms). */
  stopping: { since: number; deadline: number; grace: number } | undefined;
}

/** RFC 3339 without fractions, as Kubernetes writes times. */
export function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** Whether the restartPolicy restarts a container that exited with `exitCode`. */
export function restarts(policy: string, exitCode: number): boolean {
  return policy === "Always" || (policy === "OnFailure" && exitCode !== 0);
}

/** A pod's restartPolicy (the API server defaults it to Always). */
export function restartPolicyOf(pod: KubeObject): string {
  return String(obj((pod as Obj).spec).restartPolicy ?? "Always");
}

/** `p_ns(uid)`, as the kubelet names a pod in messages. */
export function podRef(pod: KubeObject): string {
  return `${pod.metadata.name ?? ""}_${pod.metadata.namespace ?? ""}(${pod.metadata.uid ?? ""})`;
}

/** A duration as Go prints it: `10s`, `1m20s`, `5m0s`. */
export function goDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes}m${seconds % 60}s` : `${Math.floor(minutes / 60)}h${minutes % 60}m${seconds % 60}s`;
}

function terminated(t: Termination): Obj {
  return { exitCode: t.exitCode, reason: t.reason, startedAt: rfc3339(t.startedAt), finishedAt: rfc3339(t.finishedAt), containerID: t.containerID };
}

function stateOf(pod: KubeObject, c: ContainerRun): { state: Obj; lastState: Obj } {
  if (!c.ended) return { state: { running: { startedAt: rfc3339(c.startedAt) } }, lastState: c.last ? { terminated: terminated(c.last) } : {} };
  if (c.backoffUntil !== undefined) {
    const message = `back-off ${goDuration(c.backoffMs)} restarting failed container=${c.name} pod=${podRef(pod)}`;
    return { state: { waiting: { reason: "CrashLoopBackOff", message } }, lastState: { terminated: terminated(c.ended) } };
  }
  return { state: { terminated: terminated(c.ended) }, lastState: c.last ? { terminated: terminated(c.last) } : {} };
}

/**
 * Whether a container's readiness probe fails. Only an `exec` probe whose command the
 * sim reads as exiting non-zero (`false`, `exit 1`, `sh -c "... && exit 3"`) fails, at
 * every period; other probes (httpGet, tcpSocket, commands it cannot tell) pass.
 */
export function readinessFails(pod: KubeObject, container: string): boolean {
  const spec = arr(obj((pod as Obj).spec).containers).find((c) => c.name === container);
  const command = obj(obj(obj(spec).readinessProbe).exec).command;
  if (!Array.isArray(command) || command.length === 0) return false;
  const program = interpret({ command: command.map(String) });
  return program.exitAfter !== undefined && program.exitCode !== 0;
}

/** The status of one container: ready while it runs and its readiness probe passes. */
function containerStatus(pod: KubeObject, c: ContainerRun): Obj {
  const { state, lastState } = stateOf(pod, c);
  const running = !c.ended;
  return { name: c.name, state, lastState, ready: running && !readinessFails(pod, c.name), restartCount: c.restartCount, image: c.image, imageID: `sim://${c.image}`, containerID: c.containerID, started: running };
}

/**
 * The phase, as the kubelet's getPhase: Running while a container runs or will be
 * restarted; once all have stopped for good, Succeeded if all exited 0, else Failed.
 */
export function phaseOf(run: PodRun, policy: string): "Running" | "Succeeded" | "Failed" {
  if (run.containers.some((c) => !c.ended)) return "Running";
  if (run.containers.some((c) => c.ended && restarts(policy, c.ended.exitCode))) return "Running";
  return run.containers.every((c) => c.ended?.exitCode === 0) ? "Succeeded" : "Failed";
}

function condition(current: readonly Obj[], type: string, status: "True" | "False", now: number, reason?: string, message?: string): Obj {
  const before = current.find((c) => c.type === type);
  const since = before?.status === status && typeof before.lastTransitionTime === "string" ? before.lastTransitionTime : rfc3339(now);
  return { type, status, lastProbeTime: null, lastTransitionTime: since, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

/** The conditions the kubelet owns, then the others (PodScheduled, DisruptionTarget, ...) as they are. */
function conditionsOf(pod: KubeObject, run: PodRun, phase: string, now: number): Obj[] {
  const current = arr(obj((pod as Obj).status).conditions);
  const done = phase === "Succeeded" || phase === "Failed";
  const unready = run.containers.filter((c) => c.ended || readinessFails(pod, c.name)).map((c) => c.name);
  const [reason, message] = done ? ["PodCompleted", undefined] : unready.length > 0 ? ["ContainersNotReady", `containers with unready status: [${unready.join(" ")}]`] : [undefined, undefined];
  const ready = unready.length === 0 ? "True" : "False";
  const owned = [
    condition(current, "PodReadyToStartContainers", done ? "False" : "True", now),
    condition(current, "Initialized", "True", now),
    condition(current, "Ready", ready, now, reason, message),
    condition(current, "ContainersReady", ready, now, reason, message),
  ];
  const types = new Set(owned.map((c) => c.type));
  return [...owned, ...current.filter((c) => !types.has(c.type))];
}

/** The status the kubelet reports for a pod. */
export function podStatus(pod: KubeObject, run: PodRun, now: number): Obj {
  const phase = phaseOf(run, restartPolicyOf(pod));
  return {
    phase,
    conditions: conditionsOf(pod, run, phase, now),
    hostIP: run.hostIP,
    hostIPs: [{ ip: run.hostIP }],
    podIP: run.podIP,
    podIPs: [{ ip: run.podIP }],
    startTime: rfc3339(run.startTime),
    containerStatuses: run.containers.map((c) => containerStatus(pod, c)),
    qosClass: obj((pod as Obj).status).qosClass ?? "BestEffort",
  };
}

function termination(value: unknown): Termination | undefined {
  const t = obj(value);
  if (t.exitCode === undefined) return undefined;
  const exitCode = Number(t.exitCode);
  const at = (time: unknown): number => Date.parse(String(time ?? "")) || 0;
  return { exitCode, reason: exitCode === 0 ? "Completed" : "Error", startedAt: at(t.startedAt), finishedAt: at(t.finishedAt), containerID: String(t.containerID ?? "") };
}

/**
 * A pod the kubelet finds already reported (the sim restored from its state folder): its
 * containers go on from what the status says, with the same IPs, start times, restart
 * counts and exits. Undefined when nothing was reported yet.
 */
export function runFromStatus(pod: KubeObject, programOf: (container: Obj) => ContainerProgram): PodRun | undefined {
  const status = obj((pod as Obj).status);
  const statuses = arr(status.containerStatuses);
  if (statuses.length === 0 || typeof status.podIP !== "string") return undefined;
  const containers = arr(obj((pod as Obj).spec).containers).map((spec): ContainerRun => {
    const reported = obj(statuses.find((s) => s.name === spec.name));
    const state = obj(reported.state);
    const lastState = termination(obj(reported.lastState).terminated);
    const waiting = state.waiting !== undefined && lastState !== undefined;
    const ended = waiting ? lastState : termination(state.terminated);
    const startedAt = Date.parse(String(obj(state.running).startedAt ?? "")) || (ended?.startedAt ?? Date.now());
    return {
      name: String(spec.name ?? ""),
      image: String(spec.image ?? ""),
      program: programOf(spec),
      restartCount: Number(reported.restartCount ?? 0),
      containerID: String(reported.containerID ?? ""),
      startedAt,
      ended,
      last: waiting ? undefined : lastState,
      backoffUntil: undefined,
      // A crash-looping container resumes its back-off from its last exit.
      backoffMs: waiting ? 10_000 : 0,
      backoffUpdated: ended?.finishedAt ?? 0,
    };
  });
  const startTime = Date.parse(String(status.startTime ?? "")) || Date.now();
  return { uid: pod.metadata.uid ?? "", containers, podIP: status.podIP, hostIP: String(status.hostIP ?? ""), startTime, stopping: undefined };
}
