/**
 * Where a replica is reached: `<service>.<namespace>:<port>` (a replica's Service is named
 * as its pod). A ddp-learner is reached on one port per GPU, the containerPorts named
 * `gpu-port-<i>` (`<nervex port> + i`), so it has one URL per GPU.
 */
import type { KubeObject } from "../../../../protocol/index.ts";
import type { Container, PodSpec } from "../../../kit/pod.ts";
import { REPLICA_TYPE_LABEL, type ReplicaType, REPLICA_TYPES } from "../labels.ts";
import { CONTAINER_NAME, DEFAULT_PORTS, PORT_NAME } from "../ports.ts";
import { replicaUrl } from "../replica-pod.ts";

/** The name prefix of a ddp-learner's per-GPU ports. */
export const GPU_PORT_PREFIX = "gpu-port-";

/** A containerPort as read from a pod (anything else in the array is skipped). */
export interface NamedPort {
  readonly name: string;
  readonly containerPort: number;
}

/** The replica type a pod's label names, if it is one. */
export function replicaTypeOf(pod: KubeObject): ReplicaType | undefined {
  const value = pod.metadata.labels?.[REPLICA_TYPE_LABEL];
  return REPLICA_TYPES.find((type) => type === value);
}

/** The containers of a pod's spec (none when it has no readable spec). */
function containersOf(pod: KubeObject): Container[] {
  const spec = pod["spec"] as Partial<PodSpec> | undefined;
  return Array.isArray(spec?.containers) ? spec.containers.filter((c): c is Container => typeof c === "object" && c !== null) : [];
}

/** The container NerveX configures: `nervex-container`, else the first. */
export function nervexContainer(pod: KubeObject): Container | undefined {
  const containers = containersOf(pod);
  return containers.find((c) => c.name === CONTAINER_NAME) ?? containers[0];
}

/** The named ports of a container. */
export function namedPorts(container: Container | undefined): NamedPort[] {
  const ports = container?.["ports"];
  if (!Array.isArray(ports)) return [];
  return ports.filter(
    (p): p is NamedPort => typeof p === "object" && p !== null && typeof (p as NamedPort).name === "string" && Number.isInteger((p as NamedPort).containerPort),
  );
}

/** A pod's NerveX port: its `nervex-port`, else its type's default. */
export function nervexPortOf(pod: KubeObject): number {
  const declared = namedPorts(nervexContainer(pod)).find((p) => p.name === PORT_NAME);
  return declared?.containerPort ?? DEFAULT_PORTS[replicaTypeOf(pod) ?? "learner"];
}

/** The index of a `gpu-port-<i>` name, or undefined. */
function gpuPortIndex(name: string): number | undefined {
  if (!name.startsWith(GPU_PORT_PREFIX)) return undefined;
  const index = Number(name.slice(GPU_PORT_PREFIX.length));
  return Number.isInteger(index) && index >= 0 ? index : undefined;
}

/** A pod's per-GPU ports, by index. */
export function gpuPortsOf(pod: KubeObject): number[] {
  return namedPorts(nervexContainer(pod))
    .map((p) => ({ index: gpuPortIndex(p.name), port: p.containerPort }))
    .filter((p): p is { index: number; port: number } => p.index !== undefined)
    .sort((a, b) => a.index - b.index)
    .map((p) => p.port);
}

/** The URLs of a replica: one per GPU port of a ddp-learner, else its NerveX port's. */
export function urlsOf(pod: KubeObject): string[] {
  const name = pod.metadata.name ?? "";
  const namespace = pod.metadata.namespace ?? "default";
  const gpuPorts = replicaTypeOf(pod) === "ddp-learner" ? gpuPortsOf(pod) : [];
  const ports = gpuPorts.length > 0 ? gpuPorts : [nervexPortOf(pod)];
  return ports.map((port) => replicaUrl(name, namespace, port));
}
