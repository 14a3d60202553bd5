/**
 * What makes a learner pod a ddp-learner behind an aggregator: the distributed-training
 * env (upstream's `WORLD_SIZE`, `LOCAL_WORLD_SIZE`, `START_RANK`, `MASTER_ADDR`,
 * `MASTER_PORT=10314`), one port per GPU (`gpu-port-<i>` = NerveX port + i, on the NerveX
 * container and the Service) and the label naming its aggregator.
 */
import type { KubeObject } from "../../../../protocol/index.ts";
import type { EnvVar } from "../../../kit/container-env.ts";
import { boundedLabelValue } from "../../../kit/names.ts";
import type { Container } from "../../../kit/pod.ts";
import { CONTAINER_NAME } from "../ports.ts";
import { AGGREGATOR_NAME_LABEL } from "./lookup.ts";
import { GPU_PORT_PREFIX, namedPorts } from "./urls.ts";

/** The port ddp-learners rendezvous on (upstream's). */
export const MASTER_PORT = 10314;

/** The env of the `index`th ddp-learner of an aggregator whose ddp-learners hold `split` GPUs each. */
export function ddpEnv(split: readonly number[], index: number, masterHost: string): EnvVar[] {
  const world = split.reduce((a, b) => a + b, 0);
  const start = split.slice(0, index).reduce((a, b) => a + b, 0);
  return [
    { name: "WORLD_SIZE", value: String(world) },
    { name: "LOCAL_WORLD_SIZE", value: String(split[index] ?? 0) },
    { name: "START_RANK", value: String(start) },
    { name: "MASTER_ADDR", value: masterHost },
    { name: "MASTER_PORT", value: String(MASTER_PORT) },
  ];
}

function gpuPorts(port: number, gpus: number): { name: string; containerPort: number; protocol: string }[] {
  return Array.from({ length: gpus }, (_, i) => ({ name: `${GPU_PORT_PREFIX}${i}`, containerPort: port + i, protocol: "TCP" }));
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * A ddp-learner's pod and Service from a learner's: `gpus` ports on the NerveX container
 * (next to its `nervex-port`, which `gpu-port-0` shares), the Service serving the GPU ports
 * (a Service may not list one port twice), and both labelled with the aggregator.
 */
export function asDdpLearner(objects: { pod: KubeObject; service: KubeObject; port: number }, gpus: number, aggregator: string): { pod: KubeObject; service: KubeObject } {
  const { pod, service, port } = objects;
  const label = { [AGGREGATOR_NAME_LABEL]: boundedLabelValue(aggregator) };
  const spec = record(pod["spec"]);
  const containers = Array.isArray(spec["containers"]) ? (spec["containers"] as Container[]) : [];
  const named = containers.findIndex((c) => c.name === CONTAINER_NAME);
  const index = named < 0 ? 0 : named;
  const ports = gpuPorts(port, gpus);
  const withPorts = containers.map((c, i) => {
    if (i !== index) return c;
    const taken = new Set(namedPorts(c).map((p) => p.name));
    const existing = Array.isArray(c["ports"]) ? (c["ports"] as unknown[]) : [];
    return { ...c, ports: [...existing, ...ports.filter((p) => !taken.has(p.name))] };
  });
  const serviceSpec = record(service["spec"]);
  return {
    pod: { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, ...label } }, spec: { ...spec, containers: withPorts } },
    service: {
      ...service,
      metadata: { ...service.metadata, labels: { ...service.metadata.labels, ...label } },
      spec: { ...serviceSpec, ports: ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.containerPort, targetPort: p.containerPort })) },
    },
  };
}
