/**
 * The kubelet simulator. A pod bound to a heartbeating node starts: IPs, container
 * statuses, Ready, and the `Pulled`/`Created`/`Started` events. Each container follows
 * its command where it is a common one (`sleep N`, `echo`, `sh -c "...; exit N"`: see
 * container-command.ts) and writes what `kubectl logs` shows; the annotations
 * `sim.edgeloop.dev/run-seconds` and `sim.edgeloop.dev/exit-code` override the command.
 * Exited containers restart under the restartPolicy with the kubelet's crash-loop back-off
 * (at once the first time, then 10 s doubling to 5 min, with a `BackOff` event).
 *
 * A deleted pod's running containers get SIGTERM (a `Killing` event) and stop after
 * `sim.edgeloop.dev/shutdown-seconds` (default {@link DEFAULT_SHUTDOWN_SECONDS}), or are
 * killed when the grace period ends first; then the pod goes.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { jsonEqual } from "../api/objects.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { interpret, withOverrides, type ContainerProgram } from "./container-command.ts";
import { containerLogsOf, type ContainerLogs, type LogEntry } from "./container-logs.ts";
import { recordEvent } from "./events.ts";
import { podRef, podStatus, restartPolicyOf, restarts, runFromStatus, type ContainerRun, type PodRun } from "./kubelet-status.ts";
import { heartbeating } from "./nodes.ts";
import { arr, ignoreNotFound, keyOf, KeyQueue, obj, splitNsKey, type Obj } from "./runtime.ts";
import { Wakeups } from "./wakeups.ts";

export const RUN_SECONDS = "sim.edgeloop.dev/run-seconds";
export const EXIT_CODE = "sim.edgeloop.dev/exit-code";
/** Seconds a container takes to stop after SIGTERM (a slow shutdown); never beyond the grace period. */
export const SHUTDOWN_SECONDS = "sim.edgeloop.dev/shutdown-seconds";
/** How long a simulated container takes to stop on SIGTERM unless annotated otherwise. */
export const DEFAULT_SHUTDOWN_SECONDS = 0.5;
/** The kubelet always gives containers this long before SIGKILL (minimumGracePeriodInSeconds). */
const MIN_GRACE_SECONDS = 2;
/** Crash-loop back-off: first window, cap, and the idle time after which it resets (2 × cap). */
const BACKOFF_INITIAL_MS = 10_000;
const BACKOFF_MAX_MS = 300_000;
/** Exit codes of a process ended by SIGTERM and by SIGKILL. */
const SIGTERM_EXIT = 143;
const SIGKILL_EXIT = 137;

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };

/** A non-negative number annotation, if set. */
function seconds(pod: KubeObject, annotation: string): number | undefined {
  const raw = pod.metadata.annotations?.[annotation];
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** What a container of the pod does: its command, overridden by the pod's annotations. */
function programOf(pod: KubeObject, container: Obj): ContainerProgram {
  const env = Object.fromEntries(arr(container.env).filter((e) => typeof e.value === "string").map((e) => [String(e.name), String(e.value)]));
  const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.map(String) : undefined);
  const raw = pod.metadata.annotations?.[EXIT_CODE];
  const exitCode = raw === undefined ? undefined : Number(raw) || 0;
  const hostname = String(obj((pod as Obj).spec).hostname ?? pod.metadata.name ?? "").slice(0, 63);
  return withOverrides(interpret({ command: strings(container.command), args: strings(container.args), env, hostname }), { runSeconds: seconds(pod, RUN_SECONDS), exitCode });
}

/** What a program writes when it starts at `startedAt` (epoch ms), as log entries. */
function linesOf(program: ContainerProgram, startedAt: number): LogEntry[] {
  return program.output.map((line) => ({ time: startedAt + line.at * 1000, stream: line.stream, text: line.text }));
}

/** When the current instance exits by itself (epoch ms), if ever. */
function exitAt(c: ContainerRun): number | undefined {
  return c.program.exitAfter === undefined ? undefined : c.startedAt + c.program.exitAfter * 1000;
}

/** The kubelet of every simulated node. */
export function kubelet(): SimController {
  const nodes = new Map<string, KubeObject>();
  const runs = new Map<string, PodRun>();
  let cluster: Cluster | undefined;
  let logs: ContainerLogs | undefined;
  let ipCounter = 0;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => process(key));
  const wakeups = new Wakeups((key) => queue.add(key));

  const nextIp = (): string => {
    ipCounter += 1;
    return `10.244.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
  };

  async function process(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const pod = await cluster.find(POD, namespace, name);
    if (!pod) return;
    const nodeName = String(obj((pod as Obj).spec).nodeName ?? "");
    const node = nodes.get(nodeName);
    if (!nodeName || !node || !heartbeating(node)) return;
    let run = runs.get(pod.metadata.uid ?? "");
    if (pod.metadata.deletionTimestamp) return terminate(pod, key, run);
    run ??= adopt(pod);
    if (!run) {
      const phase = obj((pod as Obj).status).phase;
      if (phase === "Succeeded" || phase === "Failed") return;
      run = await startPod(pod, nodeName);
    }
    const now = Date.now();
    await advance(pod, run, now);
    await report(pod, run, now);
    const next = Math.min(...run.containers.map((c) => c.backoffUntil ?? (c.ended ? Infinity : (exitAt(c) ?? Infinity))));
    if (Number.isFinite(next)) wakeups.at(key, next);
  }

  /** A pod reported before the sim restarted goes on where its status left it; its logs are written again. */
  function adopt(pod: KubeObject): PodRun | undefined {
    const run = runFromStatus(pod, (spec) => programOf(pod, spec));
    if (!run) return undefined;
    runs.set(run.uid, run);
    const [, third = 0, fourth = 0] = /^10\.244\.(\d+)\.(\d+)$/.exec(run.podIP)?.map(Number) ?? [];
    ipCounter = Math.max(ipCounter, third * 250 + fourth - 1);
    for (const c of run.containers) {
      if (c.last) {
        logs?.start(run.uid, c.name, linesOf(c.program, c.last.startedAt));
        logs?.end(run.uid, c.name, c.last.finishedAt);
      }
      logs?.start(run.uid, c.name, linesOf(c.program, c.ended?.startedAt ?? c.startedAt));
      if (c.ended) logs?.end(run.uid, c.name, c.ended.finishedAt);
    }
    return run;
  }

  async function startPod(pod: KubeObject, nodeName: string): Promise<PodRun> {
    const now = Date.now();
    const hostIP = `192.168.0.${(Number(/(\d+)$/.exec(nodeName)?.[1] ?? 0) % 250) + 1}`;
    const containers = arr(obj((pod as Obj).spec).containers).map((spec): ContainerRun => ({
      name: String(spec.name ?? ""),
      image: String(spec.image ?? ""),
      program: programOf(pod, spec),
      restartCount: 0,
      containerID: "",
      startedAt: now,
      ended: undefined,
      last: undefined,
      backoffUntil: undefined,
      backoffMs: 0,
      backoffUpdated: 0,
    }));
    const run: PodRun = { uid: pod.metadata.uid ?? "", containers, podIP: nextIp(), hostIP, startTime: now, stopping: undefined };
    runs.set(run.uid, run);
    for (const c of containers) await startInstance(pod, run, c, now);
    return run;
  }

  /** A container instance starts: image, create and start events, and what it will write. */
  async function startInstance(pod: KubeObject, run: PodRun, c: ContainerRun, at: number): Promise<void> {
    c.containerID = `sim://${crypto.randomUUID()}`;
    c.startedAt = at;
    c.ended = undefined;
    logs?.start(run.uid, c.name, linesOf(c.program, at));
    const spec = arr(obj((pod as Obj).spec).containers).find((s) => s.name === c.name) ?? {};
    if (spec.imagePullPolicy === "Always") {
      await event(pod, "Normal", "Pulling", `Pulling image "${c.image}"`);
      await event(pod, "Normal", "Pulled", `Successfully pulled image "${c.image}" in 0s (0s including waiting). Image size: 0 bytes.`);
    } else {
      await event(pod, "Normal", "Pulled", `Container image "${c.image}" already present on machine`);
    }
    await event(pod, "Normal", "Created", `Created container: ${c.name}`);
    await event(pod, "Normal", "Started", `Started container ${c.name}`);
  }

  /** Moves every container to `now`: exits when due, restarts under the restartPolicy and the back-off. */
  async function advance(pod: KubeObject, run: PodRun, now: number): Promise<void> {
    const policy = restartPolicyOf(pod);
    for (const c of run.containers) {
      // A container that exits at once may run and exit twice in one pass (the first restart has no back-off).
      for (let step = 0; step < 3; step++) {
        if (!c.ended) {
          const due = exitAt(c);
          if (due === undefined || due > now) break;
          c.ended = { exitCode: c.program.exitCode, reason: c.program.exitCode === 0 ? "Completed" : "Error", startedAt: c.startedAt, finishedAt: due, containerID: c.containerID };
          logs?.end(run.uid, c.name, due);
        }
        if (!restarts(policy, c.ended.exitCode) || !(await restartDue(pod, c, now))) break;
        c.last = c.ended;
        c.restartCount += 1;
        await startInstance(pod, run, c, now);
      }
    }
  }

  /** client-go's Backoff as the kubelet uses it: restart when the window since the exit has passed, widening it. */
  async function restartDue(pod: KubeObject, c: ContainerRun, now: number): Promise<boolean> {
    const finished = c.ended?.finishedAt ?? now;
    if (finished - c.backoffUpdated > 2 * BACKOFF_MAX_MS) c.backoffMs = 0;
    if (c.backoffMs > 0 && now - finished < c.backoffMs) {
      if (c.backoffUntil === undefined) {
        c.backoffUntil = finished + c.backoffMs;
        await event(pod, "Warning", "BackOff", `Back-off restarting failed container ${c.name} in pod ${podRef(pod)}`);
      }
      return false;
    }
    c.backoffMs = c.backoffMs === 0 ? BACKOFF_INITIAL_MS : Math.min(2 * c.backoffMs, BACKOFF_MAX_MS);
    c.backoffUpdated = now;
    c.backoffUntil = undefined;
    return true;
  }

  /** Writes the pod's status when it changed. */
  async function report(pod: KubeObject, run: PodRun, now: number): Promise<void> {
    if (!cluster) return;
    const status = podStatus(pod, run, now);
    const current = obj((pod as Obj).status);
    if (Object.keys(status).every((k) => jsonEqual(status[k], current[k]))) return;
    await ignoreNotFound(cluster.patch(POD, pod.metadata.namespace, pod.metadata.name ?? "", { status }, "merge", { subresource: "status" }));
  }

  /** SIGTERM to running containers, SIGKILL at the grace period; once all stopped, the pod goes. */
  async function terminate(pod: KubeObject, key: string, run: PodRun | undefined): Promise<void> {
    if (!cluster) return;
    const now = Date.now();
    // The pod goes with the status it had. Kubelets since 1.27 first report the stopped containers and a terminal
    // phase (Failed for exit 143); not simulated, as controllers watching their pods would read a deletion as a failure.
    const pending = run ? await stopContainers(pod, run, now) : undefined;
    if (pending !== undefined) return wakeups.at(key, pending);
    const [namespace, name] = splitNsKey(key);
    await ignoreNotFound(cluster.delete(POD, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid ?? "" } }));
  }

  /** Stops what is due to stop by `now`; returns when the next container stops, if any still runs. */
  async function stopContainers(pod: KubeObject, run: PodRun, now: number): Promise<number | undefined> {
    const grace = Math.max(MIN_GRACE_SECONDS, pod.metadata.deletionGracePeriodSeconds ?? 30);
    if (!run.stopping) {
      run.stopping = { since: now, deadline: now + grace * 1000, grace };
      for (const c of run.containers.filter((c) => !c.ended)) await event(pod, "Normal", "Killing", `Stopping container ${c.name}`);
    } else if (grace < run.stopping.grace) {
      // A shorter grace period (a second delete) cuts the wait short, as on the kubelet.
      run.stopping = { ...run.stopping, deadline: Math.min(run.stopping.deadline, now + grace * 1000), grace };
    }
    const shutdownAt = run.stopping.since + (seconds(pod, SHUTDOWN_SECONDS) ?? DEFAULT_SHUTDOWN_SECONDS) * 1000;
    const signalled = Math.min(shutdownAt, run.stopping.deadline);
    let pending: number | undefined;
    for (const c of run.containers) {
      c.backoffUntil = undefined;
      if (c.ended) continue;
      const natural = exitAt(c) ?? Infinity;
      const stopAt = Math.min(natural, signalled);
      if (stopAt > now) {
        pending = Math.min(pending ?? Infinity, stopAt);
        continue;
      }
      const exitCode = natural <= signalled ? c.program.exitCode : shutdownAt <= run.stopping.deadline ? SIGTERM_EXIT : SIGKILL_EXIT;
      c.ended = { exitCode, reason: exitCode === 0 ? "Completed" : "Error", startedAt: c.startedAt, finishedAt: stopAt, containerID: c.containerID };
      logs?.end(run.uid, c.name, stopAt);
    }
    return pending;
  }

  async function event(pod: KubeObject, type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    if (cluster) await recordEvent(cluster, pod, type, reason, message, "kubelet", String(obj((pod as Obj).spec).nodeName ?? ""));
  }

  function onPod(event: ClusterEvent): void {
    if (event.type === "DELETED") {
      const uid = event.object.metadata.uid ?? "";
      runs.delete(uid);
      logs?.forget(uid);
      wakeups.cancel(keyOf(event.object));
      return;
    }
    if (!obj((event.object as Obj).spec).nodeName) return;
    queue.add(keyOf(event.object));
  }

  async function onNode(event: ClusterEvent, c: Cluster): Promise<void> {
    const name = event.object.metadata.name ?? "";
    const was = nodes.get(name);
    if (event.type === "DELETED") nodes.delete(name);
    else nodes.set(name, event.object);
    // A kubelet coming back resumes its pods.
    if (event.type !== "DELETED" && heartbeating(event.object) && (!was || !heartbeating(was))) {
      for (const pod of (await c.list(POD, { fieldSelector: `spec.nodeName=${name}` })).items) queue.add(keyOf(pod));
    }
  }

  return {
    name: "kubelet",
    start(c: Cluster): void {
      cluster = c;
      logs = containerLogsOf(c);
      unwatch.push(c.watch(NODE, (event) => void onNode(event, c).catch(() => undefined)));
      unwatch.push(c.watch(POD, onPod));
      void c.list(NODE).then((list) => list.items.forEach((node) => nodes.set(node.metadata.name ?? "", node)));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      wakeups.stop();
      await queue.stop();
    },
  };
}
