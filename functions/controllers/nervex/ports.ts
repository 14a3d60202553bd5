/**
 * The port each replica serves on. It is the containerPort named `nervex-port` of the
 * container `nervex-container`; a template without it gets the type's default. That one
 * container is also where env, resources and counting look (upstream used different ones).
 */
import type { Container, PodTemplate } from "../../kit/pod.ts";
import type { ReplicaType } from "./labels.ts";

/** Upstream's default port of each replica type (a ddp-learner serves like a learner). */
export const DEFAULT_PORTS: Readonly<Record<ReplicaType, number>> = {
  collector: 22270,
  learner: 22271,
  aggregator: 22272,
  coordinator: 22273,
  "ddp-learner": 22271,
};

/** The container NerveX configures, and the name of its port. */
export const CONTAINER_NAME = "nervex-container";
export const PORT_NAME = "nervex-port";

/**
 * The index of the container NerveX configures: the one named `nervex-container`, else the
 * first (a template that names its container otherwise still gets a port and its resources).
 */
export function nervexContainerIndex(template: PodTemplate): number {
  const index = template.spec.containers.findIndex((c) => c.name === CONTAINER_NAME);
  return index < 0 ? 0 : index;
}

interface ContainerPort {
  readonly name?: unknown;
  readonly containerPort?: unknown;
}

function portsOf(container: Container): ContainerPort[] {
  const ports = container["ports"];
  return Array.isArray(ports) ? ports.filter((p): p is ContainerPort => typeof p === "object" && p !== null) : [];
}

/**
 * The template with its NerveX port declared, and that port: the `nervex-port` containerPort
 * of the NerveX container when there is one, else the type's default, added. Pure.
 */
export function withNervexPort(template: PodTemplate, type: ReplicaType): { template: PodTemplate; port: number } {
  const index = nervexContainerIndex(template);
  const container = template.spec.containers[index];
  if (!container) return { template, port: DEFAULT_PORTS[type] };
  const declared = portsOf(container).find((p) => p.name === PORT_NAME);
  if (declared && typeof declared.containerPort === "number" && Number.isInteger(declared.containerPort)) {
    return { template, port: declared.containerPort };
  }
  const port = DEFAULT_PORTS[type];
  // A same-named port without a usable number is replaced, or the pod would carry two.
  const others = Array.isArray(container["ports"]) ? (container["ports"] as unknown[]).filter((p) => (p as ContainerPort | null)?.name !== PORT_NAME) : [];
  const next: Container = { ...container, ports: [...others, { name: PORT_NAME, containerPort: port, protocol: "TCP" }] };
  const containers = template.spec.containers.map((c, i) => (i === index ? next : c));
  return { template: { ...template, spec: { ...template.spec, containers } }, port };
}
