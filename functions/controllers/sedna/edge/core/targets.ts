/**
 * Which nodes' LocalControllers must hold each Sedna object (upstream's `syncToEdge`, with
 * the nodes the workers actually run on added): a FederatedLearningJob, the nodes of its
 * training workers; a JointInferenceService, its edge worker's; a Dataset, its
 * `spec.nodeName`; a Model, the nodes of every job and service of its namespace that uses
 * it. An object being deleted is held nowhere. Pure: the targets of one namespace from
 * what is known of it (every input is of that namespace).
 */
import type { KubeObject } from "../../../../../protocol/index.ts";
import { valuesAt } from "../../../../../protocol/paths.ts";
import { isTerminating } from "../../../../kit/owner.ts";
import { labelPrefix } from "../../labels.ts";

/** The kinds the channel carries. */
export const EDGE_KINDS = ["FederatedLearningJob", "JointInferenceService", "Dataset", "Model"] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

/** What the targets read of a worker pod. */
export interface WorkerPod {
  /** The uid of the job or service it works for (its `<kind>.sedna.io/uid` label). */
  readonly ownerUid: string;
  readonly ownerKind: "FederatedLearningJob" | "JointInferenceService";
  /** `train`, `edge`, … (its `<kind>.sedna.io/worker-type` label). */
  readonly workerType: string;
  readonly nodeName: string | undefined;
  readonly terminating: boolean;
}

/** What is known of one namespace. */
export interface NamespaceView {
  readonly objects: readonly KubeObject[];
  readonly pods: readonly WorkerPod[];
}

/** An object and the nodes that must hold it (sorted, no duplicates; empty: none). */
export interface Target {
  readonly object: KubeObject;
  readonly nodes: readonly string[];
}

/** The worker type whose pods carry each kind to their node. */
const EDGE_WORKER: Readonly<Record<WorkerPod["ownerKind"], string>> = { FederatedLearningJob: "train", JointInferenceService: "edge" };

/** The nodes a job's or service's spec pins its edge workers to. */
const TEMPLATE_NODES: Readonly<Record<WorkerPod["ownerKind"], string>> = {
  FederatedLearningJob: "spec.trainingWorkers[].template.spec.nodeName",
  JointInferenceService: "spec.edgeWorker.template.spec.nodeName",
};

/** The Models a job or service uses. */
const MODEL_REFERENCES: Readonly<Record<WorkerPod["ownerKind"], readonly string[]>> = {
  FederatedLearningJob: ["spec.aggregationWorker.model.name", "spec.pretrainedModel.name"],
  JointInferenceService: ["spec.edgeWorker.model.name", "spec.cloudWorker.model.name"],
};

/** A worker pod as the targets read it, or undefined when it is no Sedna worker (no owner uid label). */
export function workerPod(pod: KubeObject): WorkerPod | undefined {
  for (const ownerKind of ["FederatedLearningJob", "JointInferenceService"] as const) {
    const prefix = labelPrefix(ownerKind);
    const ownerUid = pod.metadata.labels?.[`${prefix}/uid`];
    if (ownerUid === undefined || ownerUid === "") continue;
    const nodeName = valuesAt(pod, "spec.nodeName")[0];
    return { ownerUid, ownerKind, workerType: pod.metadata.labels?.[`${prefix}/worker-type`] ?? "", nodeName, terminating: isTerminating(pod) };
  }
  return undefined;
}

/** Whether `kind` is one the channel carries. */
export function isEdgeKind(kind: string): kind is EdgeKind {
  return (EDGE_KINDS as readonly string[]).includes(kind);
}

/** The nodes of a job or service: its template's, and those its edge workers (`pods`: its own) are bound to. */
function workloadNodes(object: KubeObject, kind: WorkerPod["ownerKind"], pods: readonly WorkerPod[]): string[] {
  const bound = pods.filter((p) => p.ownerKind === kind && p.workerType === EDGE_WORKER[kind] && !p.terminating);
  return [...valuesAt(object, TEMPLATE_NODES[kind]), ...bound.map((p) => p.nodeName ?? "")];
}

/** The pods by the uid of their owner. */
function byOwner(pods: readonly WorkerPod[]): Map<string, WorkerPod[]> {
  const owners = new Map<string, WorkerPod[]>();
  for (const pod of pods) {
    const owned = owners.get(pod.ownerUid);
    if (owned) owned.push(pod);
    else owners.set(pod.ownerUid, [pod]);
  }
  return owners;
}

/** A job or service with its nodes. */
interface Workload {
  readonly object: KubeObject;
  readonly kind: WorkerPod["ownerKind"];
  readonly nodes: readonly string[];
}

/** Sorted and unique, without empty names. */
function nodeSet(nodes: readonly string[]): string[] {
  return [...new Set(nodes.filter((n) => n !== ""))].sort();
}

/** The target of every object of the namespace. */
export function targets(view: NamespaceView): Target[] {
  const live = view.objects.filter((o) => !isTerminating(o));
  const owners = byOwner(view.pods);
  const workloads = live.flatMap((object): Workload[] => {
    const kind = object.kind;
    return kind === "FederatedLearningJob" || kind === "JointInferenceService" ? [{ object, kind, nodes: workloadNodes(object, kind, owners.get(object.metadata.uid ?? "") ?? []) }] : [];
  });
  return view.objects.map((object) => {
    if (isTerminating(object)) return { object, nodes: [] };
    switch (object.kind) {
      case "FederatedLearningJob":
      case "JointInferenceService":
        return { object, nodes: nodeSet(workloads.find((w) => w.object === object)?.nodes ?? []) };
      case "Dataset":
        return { object, nodes: nodeSet(valuesAt(object, "spec.nodeName")) };
      case "Model": {
        const users = workloads.filter((w) => MODEL_REFERENCES[w.kind].some((path) => valuesAt(w.object, path).includes(object.metadata.name ?? "")));
        return { object, nodes: nodeSet(users.flatMap((w) => w.nodes)) };
      }
      default:
        return { object, nodes: [] };
    }
  });
}
