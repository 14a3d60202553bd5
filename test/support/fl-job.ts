/** The FederatedLearningJob the Sedna benches, chaos and end-to-end tests make: an aggregator on `cloud`, a trainer on each of `edge1` and `edge2`. */
import type { KubeObject } from "../../protocol/index.ts";

type Obj = Record<string, unknown>;

/** The names of the Model and Datasets a job refers to (shared ones unless given). */
export interface JobRefs {
  readonly model: string;
  readonly datasets: (node: string) => string;
}

const SHARED: JobRefs = { model: "model", datasets: (node) => `${node}-data` };

/** The job `name` in `namespace`, naming `refs` (by default the Model `model` and the Datasets `edge1-data`, `edge2-data`). */
export function flJob(name: string, namespace = "default", refs: JobRefs = SHARED): KubeObject {
  const container = (image: string): Obj => ({ name: "worker", image, env: [{ name: "exit_round", value: "3" }] });
  return {
    apiVersion: "sedna.io/v1alpha1",
    kind: "FederatedLearningJob",
    metadata: { name, namespace },
    spec: {
      aggregationWorker: { model: { name: refs.model }, template: { spec: { nodeName: "cloud", terminationGracePeriodSeconds: 0, containers: [container("agg:v1")] } } },
      trainingWorkers: ["edge1", "edge2"].map((node) => ({ dataset: { name: refs.datasets(node) }, template: { spec: { nodeName: node, terminationGracePeriodSeconds: 0, containers: [container("train:v1")] } } })),
    },
  } as KubeObject;
}

/** The Model and the two Datasets (on `edge1`, `edge2`) that {@link flJob} names with `refs`, in `namespace`. */
export function flJobRefs(namespace = "default", refs: JobRefs = SHARED): KubeObject[] {
  return [
    { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: refs.model, namespace }, spec: { url: "/m", format: "pb" } },
    ...["edge1", "edge2"].map((node) => ({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: refs.datasets(node), namespace }, spec: { url: "/d", format: "txt", nodeName: node } })),
  ] as KubeObject[];
}
