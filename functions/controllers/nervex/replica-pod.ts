/**
 * One replica's Pod and its headless Service, as upstream's operator and server build them:
 * the job's labels, priorityClassName and volumes, the NerveX port, the env a NerveX worker
 * reads to find the coordinator and the server, and the resources asked for.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { ControllerSettings } from "../../kit/controller.ts";
import { injectEnv, type EnvVar } from "../../kit/container-env.ts";
import { controllerRef } from "../../../protocol/kube/owner.ts";
import type { Container, PodSpec, PodTemplate } from "../../kit/pod.ts";
import { replicaLabels, type ReplicaType } from "./labels.ts";
import { coordinatorName } from "./names.ts";
import { PORT_NAME, nervexContainerIndex, withNervexPort } from "./ports.ts";
import type { NerveXJob } from "./schema.ts";

/** The resource name of GPUs, as upstream asks for them. */
export const GPU_RESOURCE = "nvidia.com/gpu";

/** What one replica is built from. */
export interface ReplicaInput {
  /** The job the replica belongs to: its name, namespace, labels, priorityClassName and volumes. */
  readonly job: NerveXJob;
  readonly type: ReplicaType;
  /** The pod's and the Service's name (`coordinatorName`, `replicaName`). */
  readonly name: string;
  readonly template: PodTemplate;
  readonly settings: ControllerSettings;
  /** Who owns the pod and the Service instead of the job (an aggregator owns its ddp-learners). */
  readonly owner?: KubeObject;
  /** More env vars for every container (`WORLD_SIZE`, ...); they win over the base ones. */
  readonly env?: readonly EnvVar[];
  /** Quantities by resource name (`cpu`, `memory`, `nvidia.com/gpu`), set as requests and limits. */
  readonly resources?: Readonly<Record<string, string>>;
}

/** A replica's Pod and Service, and the port both carry. */
export interface ReplicaObjects {
  readonly pod: KubeObject;
  readonly service: KubeObject;
  readonly port: number;
}

/** The env var naming a replica type's port (`COORDINATOR_PORT`, `DDP_LEARNER_PORT` is never used: a ddp-learner is a learner). */
export function portEnvName(type: ReplicaType): string {
  const base = type === "ddp-learner" ? "learner" : type;
  return `${base.toUpperCase()}_PORT`;
}

/** `<coordinator svc>.<ns>:<port>`: where every replica of the job reaches its coordinator. */
export function coordinatorUrl(job: NerveXJob): string {
  const { port } = withNervexPort(job.spec.coordinator.template, "coordinator");
  return `${coordinatorName(job.metadata.name ?? "")}.${job.metadata.namespace ?? "default"}:${port}`;
}

/** A replica's URL as the API returns it: `<name>.<ns>:<port>`. */
export function replicaUrl(name: string, namespace: string, port: number): string {
  return `${name}.${namespace}:${port}`;
}

function withResources(container: Container, resources: Readonly<Record<string, string>>): Container {
  const current = typeof container["resources"] === "object" && container["resources"] !== null ? (container["resources"] as Record<string, unknown>) : {};
  const merged = (key: string): Record<string, unknown> => {
    const existing = current[key];
    return { ...(typeof existing === "object" && existing !== null ? (existing as Record<string, unknown>) : {}), ...resources };
  };
  return { ...container, resources: { ...current, requests: merged("requests"), limits: merged("limits") } };
}

/** The job's volumes after the template's; one the template already defines by name is left out (the API would refuse two). */
function withVolumes(spec: PodSpec, volumes: readonly { readonly name: string }[]): PodSpec {
  if (volumes.length === 0) return spec;
  const own = spec.volumes ?? [];
  const names = new Set(own.map((v) => v.name));
  return { ...spec, volumes: [...own, ...volumes.filter((v) => !names.has(v.name)).map((v) => ({ ...v }))] };
}

/** Builds one replica's Pod and headless Service. Pure. */
export function replicaObjects(input: ReplicaInput): ReplicaObjects {
  const { job, type, name } = input;
  const jobName = job.metadata.name ?? "";
  const namespace = job.metadata.namespace ?? "default";
  const { template, port } = withNervexPort(input.template, type);
  const env: EnvVar[] = [
    { name: portEnvName(type), value: String(port) },
    { name: "KUBERNETES_POD_NAMESPACE", value: namespace },
    { name: "KUBERNETES_POD_NAME", value: name },
    { name: "KUBERNETES_SERVER_URL", value: input.settings.apiAddress },
    { name: "KUBERNETES_COORDINATOR_URL", value: coordinatorUrl(job) },
  ];
  const extras = new Set((input.env ?? []).map((e) => e.name));
  let spec: PodSpec = injectEnv(template.spec, [...env.filter((e) => !extras.has(e.name)), ...(input.env ?? [])]);
  spec = { ...spec, restartPolicy: spec.restartPolicy ?? "Never" };
  const priorityClassName = job.spec.priorityClassName;
  if (priorityClassName) spec = { ...spec, priorityClassName };
  spec = withVolumes(spec, job.spec.volumes ?? []);
  const resources = input.resources;
  if (resources && Object.keys(resources).length > 0) {
    const index = nervexContainerIndex(template);
    spec = { ...spec, containers: spec.containers.map((c, i) => (i === index ? withResources(c, resources) : c)) };
  }
  const labels = replicaLabels(jobName, type, name);
  const owner = controllerRef(input.owner ?? job);
  const pod: KubeObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      // Ours win: a template label must not take a pod out of its job's selectors.
      labels: { ...template.metadata?.labels, ...labels },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [owner],
    },
    spec,
  };
  const service: KubeObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace, labels: { ...labels }, ownerReferences: [{ ...owner }] },
    spec: {
      clusterIP: "None",
      selector: { ...labels },
      ports: [{ name: PORT_NAME, protocol: "TCP", port, targetPort: port }],
    },
  };
  return { pod, service, port };
}
