import type { KubeObject } from "../../../../protocol/index.ts";
import type { PodSpec, PodTemplate } from "../../../kit/pod.ts";
import { injectEnv, type EnvVar } from "../../../kit/container-env.ts";
import { shortHash } from "../../../kit/hash.ts";
import { SPEC_HASH_LABEL } from "../../../kit/labels.ts";
import { boundedName } from "../../../kit/names.ts";
import { workerLabels } from "../labels.ts";
import { controllerRef } from "../../../../protocol/kube/owner.ts";
import { applyStorage, planStorage, storageEnv, type StorageSource } from "../storage.ts";
import type { Hpa, JointInferenceSpec } from "./schema.ts";

/** The port the cloud worker serves the big model on, and its Service's port. */
export const BIG_MODEL_PORT = 5000;
/** Where the edge worker reaches the lifelong-learning local controller (upstream default). */
export const DEFAULT_LC_SERVER = "http://localhost:9100";

const KIND = "JointInferenceService";

/** The two workers of a JointInferenceService. */
export type WorkerType = "edge" | "cloud";

/** The resolved inputs one worker needs beyond the spec: its Model's URL and credentials. */
export interface WorkerInputs {
  readonly edgeModel: StorageSource;
  readonly cloudModel: StorageSource;
}

/** Everything a JointInferenceService wants to exist. */
export interface DesiredChildren {
  readonly deployments: Record<WorkerType, KubeObject>;
  readonly service: KubeObject;
  /** HPAs by worker type, only for workers with `hpa` set. */
  readonly hpas: Partial<Record<WorkerType, KubeObject>>;
}

// Every name below is a DNS label of at most 63 characters for any JI name: a long (or
// dotted) name is shortened with a hash of its own by `boundedName`, the suffix kept.

/** `<ji>-deployment-<type>`. */
export function deploymentName(ji: string, type: WorkerType): string {
  return boundedName(ji, `deployment-${type}`);
}

/**
 * `<ji>-cloud`: the Service in front of the cloud worker (a DNS-1035 label). The edge
 * worker's `BIG_MODEL_IP` is made from this same name.
 */
export function serviceName(ji: string): string {
  return boundedName(ji, "cloud", undefined, "dns1035");
}

/** `hpa-<ji>-deployment-<type>`, i.e. `hpa-<deployment>` as upstream's. */
export function hpaName(ji: string, type: WorkerType): string {
  return boundedName(`hpa-${ji}`, `deployment-${type}`);
}

function meta(parent: KubeObject, name: string, labels: Record<string, string>, hash: string): KubeObject["metadata"] {
  return {
    name,
    namespace: parent.metadata.namespace,
    labels: { ...labels, [SPEC_HASH_LABEL]: hash },
    ownerReferences: [controllerRef(parent)],
  };
}

/** Computes every desired child of a JointInferenceService from its spec and resolved Models. */
export function desiredChildren(parent: KubeObject, spec: JointInferenceSpec, inputs: WorkerInputs): DesiredChildren {
  const name = parent.metadata.name ?? "";
  const namespace = parent.metadata.namespace ?? "default";
  const uid = parent.metadata.uid ?? "";
  const common = (type: WorkerType, model: StorageSource): { env: EnvVar[]; plan: ReturnType<typeof planStorage> } => {
    const plan = planStorage(model);
    return {
      plan,
      env: [
        { name: "NAMESPACE", value: namespace },
        { name: "SERVICE_NAME", value: name },
        // Upstream draws a random suffix; a hash of the uid keeps replays identical.
        { name: "WORKER_NAME", value: `${type}worker-${shortHash([uid, type], 5)}` },
        { name: "MODEL_URL", value: plan.path },
        ...storageEnv([plan]),
      ],
    };
  };
  const cloud = common("cloud", inputs.cloudModel);
  const edge = common("edge", inputs.edgeModel);
  const cloudEnv = [...cloud.env, { name: "BIG_MODEL_BIND_PORT", value: String(BIG_MODEL_PORT) }];
  const edgeEnv = [
    ...edge.env,
    { name: "BIG_MODEL_IP", value: `${serviceName(name)}.${namespace}` },
    { name: "BIG_MODEL_PORT", value: String(BIG_MODEL_PORT) },
    { name: "HEM_NAME", value: spec.edgeWorker.hardExampleMining.name },
    { name: "HEM_PARAMETERS", value: JSON.stringify(spec.edgeWorker.hardExampleMining.parameters ?? []) },
    { name: "LC_SERVER", value: DEFAULT_LC_SERVER },
  ];
  const deployments = {
    cloud: deployment(parent, "cloud", spec.cloudWorker.template, injectEnv(spec.cloudWorker.template.spec, cloudEnv), cloud.plan, spec.cloudWorker.hpa),
    edge: deployment(parent, "edge", spec.edgeWorker.template, injectEnv(spec.edgeWorker.template.spec, edgeEnv), edge.plan, spec.edgeWorker.hpa),
  };
  const hpas: Partial<Record<WorkerType, KubeObject>> = {};
  if (spec.cloudWorker.hpa) hpas.cloud = hpa(parent, "cloud", spec.cloudWorker.hpa);
  if (spec.edgeWorker.hpa) hpas.edge = hpa(parent, "edge", spec.edgeWorker.hpa);
  return { deployments, service: service(parent), hpas };
}

function deployment(
  parent: KubeObject,
  type: WorkerType,
  template: PodTemplate,
  podSpec: PodSpec,
  plan: ReturnType<typeof planStorage>,
  autoscaling: Hpa | undefined,
): KubeObject {
  const ji = parent.metadata.name ?? "";
  const labels = workerLabels(KIND, ji, parent.metadata.uid ?? "", type);
  const podTemplate = {
    metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...labels } },
    spec: applyStorage(podSpec, [plan]),
  };
  // With an HPA the replica count is the HPA's; the Deployment starts at its minimum.
  const replicas = autoscaling ? (autoscaling.minReplicas ?? 1) : 1;
  const hash = shortHash({ template: podTemplate, replicas: autoscaling ? "hpa" : replicas });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta(parent, deploymentName(ji, type), labels, hash),
    spec: { replicas, selector: { matchLabels: labels }, template: podTemplate },
  };
}

function service(parent: KubeObject): KubeObject {
  const ji = parent.metadata.name ?? "";
  const labels = workerLabels(KIND, ji, parent.metadata.uid ?? "", "cloud");
  const spec = {
    type: "ClusterIP",
    selector: labels,
    ports: [{ name: "inference", protocol: "TCP", port: BIG_MODEL_PORT, targetPort: BIG_MODEL_PORT }],
  };
  return { apiVersion: "v1", kind: "Service", metadata: meta(parent, serviceName(ji), labels, shortHash(spec)), spec };
}

function hpa(parent: KubeObject, type: WorkerType, autoscaling: Hpa): KubeObject {
  const ji = parent.metadata.name ?? "";
  const labels = workerLabels(KIND, ji, parent.metadata.uid ?? "", type);
  const spec: Record<string, unknown> = {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: deploymentName(ji, type) },
    minReplicas: autoscaling.minReplicas ?? 1,
    maxReplicas: autoscaling.maxReplicas,
  };
  if (autoscaling.metrics) spec["metrics"] = autoscaling.metrics;
  if (autoscaling.behavior) spec["behavior"] = autoscaling.behavior;
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: meta(parent, hpaName(ji, type), labels, shortHash(spec)),
    spec,
  };
}
