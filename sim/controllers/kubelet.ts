/**
 * The kubelet simulator: a pod bound to a heartbeating node starts (Running, Ready,
 * container statuses, IPs), exits after `sim.edgeloop.dev/run-seconds` with
 * `sim.edgeloop.dev/exit-code` under its restartPolicy, and a deleted pod terminates
 * once its grace period is over.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { heartbeating } from "./nodes.ts";
import { arr, ignoreNotFound, keyOf, KeyQueue, now, obj, splitNsKey, type Obj } from "./runtime.ts";

export const RUN_SECONDS = "sim.edgeloop.dev/run-seconds";
export const EXIT_CODE = "sim.edgeloop.dev/exit-code";
const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };

function condition(type: string, status: "True" | "False", at: string, reason?: string): Obj {
  return { type, status, lastProbeTime: null, lastTransitionTime: at, ...(reason ? { reason } : {}) };
}

function containerNames(pod: KubeObject): string[] {
  return arr(obj((pod as Obj).spec).containers).map((c) => String(c.name ?? ""));
}

function images(pod: KubeObject): Map<string, string> {
  return new Map(arr(obj((pod as Obj).spec).containers).map((c) => [String(c.name ?? ""), String(c.image ?? "")]));
}

/** Status of a pod whose containers are running since `startedAt`. */
function runningStatus(pod: KubeObject, startedAt: string, restarts: number, ip: string, hostIP: string, last?: Obj): Obj {
  const stamp = now();
  const image = images(pod);
  return {
    phase: "Running",
    conditions: [condition("PodReadyToStartContainers", "True", stamp), condition("Initialized", "True", stamp), condition("Ready", "True", stamp), condition("ContainersReady", "True", stamp), condition("PodScheduled", "True", stamp)],
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime: String(obj((pod as Obj).status).startTime ?? startedAt),
    containerStatuses: containerNames(pod).map((name) => ({
      name,
      image: image.get(name) ?? "",
      imageID: `sim://${image.get(name) ?? ""}`,
      containerID: `sim://${crypto.randomUUID()}`,
      ready: true,
      started: true,
      restartCount: restarts,
      state: { running: { startedAt } },
      ...(last ? { lastState: { terminated: last } } : {}),
    })),
    qosClass: obj((pod as Obj).status).qosClass ?? "BestEffort",
  };
}

function exitedStatus(pod: KubeObject, code: number, restarts: number): Obj {
  const stamp = now();
  const status = obj((pod as Obj).status);
  const startedAt = String(obj(obj(arr(status.containerStatuses)[0]?.state).running).startedAt ?? stamp);
  const reason = code === 0 ? "Completed" : "Error";
  const image = images(pod);
  return {
    ...status,
    phase: code === 0 ? "Succeeded" : "Failed",
    conditions: [condition("PodReadyToStartContainers", "False", stamp), condition("Initialized", "True", stamp), condition("Ready", "False", stamp, "PodCompleted"), condition("ContainersReady", "False", stamp, "PodCompleted"), condition("PodScheduled", "True", stamp)],
    containerStatuses: containerNames(pod).map((name) => ({
      name,
      image: image.get(name) ?? "",
      imageID: `sim://${image.get(name) ?? ""}`,
      ready: false,
      started: false,
      restartCount: restarts,
      state: { terminated: { exitCode: code, reason, startedAt, finishedAt: stamp } },
    })),
  };
}

function conditionTrue(status: Obj, type: string): boolean {
  return arr(status.conditions).some((c) => c.type === type && c.status === "True");
}

/** The kubelet of every simulated node. */
export function kubelet(): SimController {
  const nodes = new Map<string, KubeObject>();
  let cluster: Cluster | undefined;
  let ipCounter = 0;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => process(key));

  const nextIp = (): string => {
    ipCounter += 1;
    return `10.244.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
  };

  async function process(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const pod = await cluster.find(POD, namespace, name);
    if (!pod) return;
    const spec = obj((pod as Obj).spec);
    const nodeName = typeof spec.nodeName === "string" ? spec.nodeName : "";
    const node = nodes.get(nodeName);
    if (!nodeName || !node || !heartbeating(node)) return;
    if (pod.metadata.deletionTimestamp) return terminate(pod, key);
    const status = obj((pod as Obj).status);
    if (status.phase === "Succeeded" || status.phase === "Failed") return;
    const first = arr(status.containerStatuses)[0];
    const hostIP = `192.168.0.${Number(/(\d+)$/.exec(nodeName)?.[1] ?? 0) % 250 + 1}`;
    if (!first) {
      const running = runningStatus(pod, now(), 0, nextIp(), hostIP);
      await ignoreNotFound(cluster.patch(POD, namespace, name, { status: running }, "merge", { subresource: "status" }));
      return scheduleExit(pod, key, now());
    }
    const startedAt = String(obj(obj(first.state).running).startedAt ?? "");
    if (startedAt && !conditionTrue(status, "Ready")) await reportReadyAgain(namespace, name, status);
    if (startedAt) return maybeExit(pod, key, startedAt, Number(first.restartCount ?? 0), String(status.podIP ?? nextIp()), hostIP);
  }

  /** A kubelet that was cut off reports its running containers Ready again. */
  async function reportReadyAgain(namespace: string | undefined, name: string, status: Obj): Promise<void> {
    if (!cluster) return;
    const stamp = now();
    const conditions = arr(status.conditions).map((c) => (c.type === "Ready" || c.type === "ContainersReady" ? { type: c.type, status: "True", lastProbeTime: null, lastTransitionTime: stamp } : c));
    const containerStatuses = arr(status.containerStatuses).map((c) => ({ ...c, ready: true }));
    await ignoreNotFound(cluster.patch(POD, namespace, name, { status: { conditions, containerStatuses } }, "merge", { subresource: "status" }));
  }

  function runSeconds(pod: KubeObject): number | undefined {
    const raw = pod.metadata.annotations?.[RUN_SECONDS];
    const seconds = raw === undefined ? NaN : Number(raw);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  }

  function scheduleExit(pod: KubeObject, key: string, startedAt: string): void {
    const seconds = runSeconds(pod);
    if (seconds === undefined) return;
    queue.addAfter(key, Date.parse(startedAt) + seconds * 1000 - Date.now());
  }

  async function maybeExit(pod: KubeObject, key: string, startedAt: string, restarts: number, ip: string, hostIP: string): Promise<void> {
    const seconds = runSeconds(pod);
    if (seconds === undefined || !cluster) return;
    const due = Date.parse(startedAt) + seconds * 1000;
    if (Date.now() < due) return void queue.addAfter(key, due - Date.now());
    const code = Number(pod.metadata.annotations?.[EXIT_CODE] ?? "0") || 0;
    const policy = String(obj((pod as Obj).spec).restartPolicy ?? "Always");
    const [namespace, name] = splitNsKey(key);
    if (policy === "Never" || (policy === "OnFailure" && code === 0)) {
      await ignoreNotFound(cluster.patch(POD, namespace, name, { status: exitedStatus(pod, code, restarts) }, "merge", { subresource: "status" }));
      return;
    }
    const restartedAt = now();
    const last = { exitCode: code, reason: code === 0 ? "Completed" : "Error", startedAt, finishedAt: restartedAt };
    await ignoreNotFound(cluster.patch(POD, namespace, name, { status: runningStatus(pod, restartedAt, restarts + 1, ip, hostIP, last) }, "merge", { subresource: "status" }));
    scheduleExit(pod, key, restartedAt);
  }

  async function terminate(pod: KubeObject, key: string): Promise<void> {
    if (!cluster) return;
    const due = Date.parse(pod.metadata.deletionTimestamp ?? "");
    if (Number.isFinite(due) && Date.now() < due) return void queue.addAfter(key, due - Date.now());
    const [namespace, name] = splitNsKey(key);
    await ignoreNotFound(cluster.delete(POD, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid ?? "" } }));
  }

  function onPod(event: ClusterEvent): void {
    if (event.type === "DELETED") return;
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
      unwatch.push(c.watch(NODE, (event) => void onNode(event, c).catch(() => undefined)));
      unwatch.push(c.watch(POD, onPod));
      void c.list(NODE).then((list) => list.items.forEach((node) => nodes.set(node.metadata.name ?? "", node)));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
