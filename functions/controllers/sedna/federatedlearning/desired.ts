import type { KubeObject } from "../../../../protocol/index.ts";
import type { PodSpec } from "../../../kit/pod.ts";
import { injectEnv, type EnvVar } from "../../../kit/container-env.ts";
import { shortHash } from "../../../kit/hash.ts";
import { SPEC_HASH_LABEL, WORKER_SLOT_LABEL } from "../../../kit/labels.ts";
import { boundedName } from "../../../kit/names.ts";
import { workerLabels } from "../labels.ts";
import { controllerRef } from "../../../../protocol/kube/owner.ts";
import { applyStorage, planStorage, storageEnv, type StorageSource } from "../storage.ts";
import type { FederatedLearningSpec } from "./schema.ts";

/** The aggregation worker's port, and its Service's. */
export const AGG_PORT = 7363;
/** Where training workers reach the lifelong-learning local controller (upstream default). */
export const DEFAULT_LC_SERVER = "http://localhost:9100";

const KIND = "FederatedLearningJob";

/** A worker slot of a job: `aggregation` or `train-<index>`. */
export type Slot = string;

/** The URLs the job's Models and Datasets resolve to. */
export interface JobInputs {
  readonly model: StorageSource;
  readonly pretrainedModel?: StorageSource | undefined;
  /** One per training worker, in order. */
  readonly datasets: readonly StorageSource[];
}

/** Every slot of a job, aggregation first. */
export function slotsOf(spec: FederatedLearningSpec): Slot[] {
  return ["aggregation", ...spec.trainingWorkers.map((_, index) => `train-${index}`)];
}

/** The hash of everything a job's pods are built from: a new one rolls them all. */
export function specHashOf(spec: FederatedLearningSpec, inputs: JobInputs): string {
  return shortHash({ spec, inputs });
}

/**
 * The name of a slot's pod: `<job>-aggregation-<hash>` / `<job>-train-<hash>`. The hash
 * covers the job's uid, the spec hash, the slot and, for a replacement, the uid of the
 * pod it replaces, so a replacement never collides with a pod still terminating. A DNS
 * label (it becomes the pod's hostname) for any job name: a long one is shortened with a
 * hash of its own (`boundedName`).
 */
export function podName(parent: KubeObject, specHash: string, slot: Slot, replaces?: string): string {
  const type = slot === "aggregation" ? "aggregation" : "train";
  return boundedName(parent.metadata.name ?? "", `${type}-${shortHash([parent.metadata.uid ?? "", specHash, slot, replaces ?? ""], 5)}`);
}

/**
 * `<job>-aggregation`: the Service training workers reach the aggregator through (their
 * `AGG_IP` is made from this same name). A DNS-1035 label, shortened for long job names.
 */
export function serviceName(job: string): string {
  return boundedName(job, "aggregation", undefined, "dns1035");
}

function transmitterEnv(spec: FederatedLearningSpec): EnvVar[] {
  const s3 = spec.transmitter?.s3;
  if (!s3) return [{ name: "TRANSMITTER", value: "ws" }];
  return [
    { name: "TRANSMITTER", value: "s3" },
    { name: "AGG_DATA_PATH", value: s3.aggDataPath },
  ];
}

/** The pod of one slot, named for the pod it replaces when there is one. */
export function desiredPod(parent: KubeObject, spec: FederatedLearningSpec, inputs: JobInputs, specHash: string, slot: Slot, replaces?: string): KubeObject {
  const job = parent.metadata.name ?? "";
  const namespace = parent.metadata.namespace ?? "default";
  const name = podName(parent, specHash, slot, replaces);
  const model = planStorage(inputs.model);
  const pretrained = inputs.pretrainedModel ? planStorage(inputs.pretrainedModel) : undefined;
  // What upstream gives every worker, aggregation and training alike.
  const common: EnvVar[] = [
    ...transmitterEnv(spec),
    { name: "MODEL_URL", value: model.path },
    ...(pretrained ? [{ name: "PRETRAINED_MODEL_URL", value: pretrained.path }] : []),
    { name: "JOB_NAME", value: job },
    { name: "NAMESPACE", value: namespace },
    { name: "WORKER_NAME", value: name },
    { name: "PARTICIPANTS_COUNT", value: String(spec.trainingWorkers.length) },
  ];
  const secrets = spec.transmitter?.s3?.credentialName ? [spec.transmitter.s3.credentialName] : [];
  const plans = [model, ...(pretrained ? [pretrained] : [])];
  let template;
  let podSpec: PodSpec;
  let workerType: string;
  if (slot === "aggregation") {
    workerType = "aggregation";
    template = spec.aggregationWorker.template;
    const env = [...common, { name: "AGG_BIND_PORT", value: String(AGG_PORT) }, ...storageEnv(plans)];
    podSpec = applyStorage(injectEnv({ ...template.spec, restartPolicy: template.spec.restartPolicy ?? "OnFailure" }, env, secrets), plans);
  } else {
    workerType = "train";
    const index = Number(slot.slice("train-".length));
    const worker = spec.trainingWorkers[index];
    if (!worker) throw new RangeError(`no training worker ${slot}`);
    template = worker.template;
    const dataset = inputs.datasets[index] ?? { url: "" };
    const data = planStorage(dataset);
    const env = [
      ...common,
      { name: "AGG_IP", value: `${serviceName(job)}.${namespace}` },
      { name: "AGG_PORT", value: String(AGG_PORT) },
      { name: "MODEL_NAME", value: spec.aggregationWorker.model.name },
      { name: "DATASET_NAME", value: worker.dataset.name },
      { name: "TRAIN_DATASET_URL", value: data.path },
      { name: "LC_SERVER", value: DEFAULT_LC_SERVER },
      ...storageEnv([...plans, data]),
    ];
    // Training workers run on the host network (upstream); cluster DNS must still resolve AGG_IP.
    const base: PodSpec = {
      ...template.spec,
      restartPolicy: template.spec.restartPolicy ?? "OnFailure",
      hostNetwork: true,
      dnsPolicy: typeof template.spec["dnsPolicy"] === "string" ? template.spec["dnsPolicy"] : "ClusterFirstWithHostNet",
    };
    podSpec = applyStorage(injectEnv(base, env, secrets), [...plans, data]);
  }
  const labels = workerLabels(KIND, job, parent.metadata.uid ?? "", workerType);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: parent.metadata.namespace,
      labels: { ...template.metadata?.labels, ...labels, [SPEC_HASH_LABEL]: specHash, [WORKER_SLOT_LABEL]: slot },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [controllerRef(parent)],
    },
    spec: podSpec,
  };
}

/** The ClusterIP Service in front of the aggregation worker. */
export function desiredService(parent: KubeObject): KubeObject {
  const job = parent.metadata.name ?? "";
  const labels = workerLabels(KIND, job, parent.metadata.uid ?? "", "aggregation");
  const spec = {
    type: "ClusterIP",
    selector: labels,
    ports: [{ name: "aggregation", protocol: "TCP", port: AGG_PORT, targetPort: AGG_PORT }],
  };
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: serviceName(job),
      namespace: parent.metadata.namespace,
      labels: { ...labels, [SPEC_HASH_LABEL]: shortHash(spec) },
      ownerReferences: [controllerRef(parent)],
    },
    spec,
  };
}
