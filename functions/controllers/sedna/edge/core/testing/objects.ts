/** Test objects of the Sedna kinds the edge channel carries, and frames as an upstream LocalController writes them. */
import type { KubeObject } from "../../../../../../protocol/index.ts";
import { base64 } from "../../../../../kit/base64.ts";
import { SEDNA_API_VERSION } from "../../../group.ts";

const NAMESPACE = "default";

function sedna(kind: string, name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: SEDNA_API_VERSION, kind, metadata: { name, namespace: NAMESPACE, uid: `uid-${name}`, resourceVersion: "7" }, spec, ...extra } as KubeObject;
}

/** A FederatedLearningJob whose training workers are pinned to `nodes` ("" for a worker pinned nowhere). */
export function flJob(name: string, nodes: readonly string[], model = "global-model", extra: Record<string, unknown> = {}): KubeObject {
  return sedna(
    "FederatedLearningJob",
    name,
    {
      aggregationWorker: { model: { name: model }, template: { spec: { containers: [{ name: "agg", image: "agg" }] } } },
      trainingWorkers: nodes.map((node, i) => ({ dataset: { name: `data-${i}` }, template: { spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: "train", image: "train" }] } } })),
    },
    extra,
  );
}

/** A JointInferenceService whose edge worker is pinned to `node` (none when ""). */
export function jiService(name: string, node: string, edgeModel = "edge-model", cloudModel = "cloud-model"): KubeObject {
  return sedna("JointInferenceService", name, {
    edgeWorker: { model: { name: edgeModel }, hardExampleMining: { name: "IBT" }, template: { spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: "edge", image: "edge" }] } } },
    cloudWorker: { model: { name: cloudModel }, template: { spec: { containers: [{ name: "cloud", image: "cloud" }] } } },
  });
}

/** A Dataset on `node`. */
export function dataset(name: string, node: string): KubeObject {
  return sedna("Dataset", name, { url: "/data/train.txt", format: "txt", nodeName: node });
}

/** A Model. */
export function model(name: string): KubeObject {
  return sedna("Model", name, { url: "s3://models/m", format: "pb" });
}

/** A worker pod of `owner` (by its uid label) of `workerType`, bound to `node` when given. */
export function workerPod(owner: KubeObject, workerType: string, name: string, node?: string): KubeObject {
  const prefix = `${owner.kind.toLowerCase()}.sedna.io`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NAMESPACE, uid: `uid-${name}`, labels: { [`${prefix}/name`]: owner.metadata.name ?? "", [`${prefix}/uid`]: owner.metadata.uid ?? "", [`${prefix}/worker-type`]: workerType } },
    spec: node ? { nodeName: node } : {},
  } as KubeObject;
}

/** Marks an object as being deleted. */
export function deleting(object: KubeObject): KubeObject {
  return { ...object, metadata: { ...object.metadata, deletionTimestamp: "2026-11-27T10:00:00Z" } };
}

/** A message as the LC's gmclient writes it: the header and `content` as the base64 of `content`'s JSON. */
export function lcFrame(resourceKind: string, name: string, operation: string, content: unknown, namespace = NAMESPACE): string {
  return JSON.stringify({ header: { namespace, resourceKind, resourceName: name, operation }, content: base64(JSON.stringify(content)) });
}

/** The LC's hello: `wsConn.WriteJSON(&MessageHeader{})`. */
export const LC_HELLO = JSON.stringify({ namespace: "", resourceKind: "", resourceName: "", operation: "" });
