import { z } from "zod";
import type { CustomResource } from "../../../kit/crd/resource.ts";
import { Condition } from "../../../kit/conditions.ts";
import { PodTemplate } from "../../../kit/pod.ts";
import { NameRef, SEDNA_GROUP, SEDNA_VERSION } from "../group.ts";

/** The aggregation worker: where the global model is written, and its pod. */
export const AggregationWorker = z.object({ model: NameRef, template: PodTemplate });

/** One training worker: its local Dataset and its pod. */
export const TrainingWorker = z.object({ dataset: NameRef, template: PodTemplate });

/** How workers exchange model updates: through S3, or websockets (the default). */
export const Transmitter = z.object({
  s3: z.object({ aggDataPath: z.string(), credentialName: z.string().optional() }).optional(),
  ws: z.object({}).optional(),
});
export type Transmitter = z.infer<typeof Transmitter>;

/** FederatedLearningJob spec, as upstream Sedna's. */
export const FederatedLearningSpec = z.object({
  aggregationWorker: AggregationWorker,
  trainingWorkers: z.array(TrainingWorker).min(1),
  pretrainedModel: NameRef.optional(),
  transmitter: Transmitter.optional(),
});
export type FederatedLearningSpec = z.infer<typeof FederatedLearningSpec>;

/** FL condition types: exactly one condition of each, at most. */
export const FL_CONDITION_TYPES = ["Training", "Complete", "Failed"] as const;

/**
 * The reason of the `Training` condition when it tells a training round a LocalController
 * reported (`Round N reaches at T`, upstream's upstream.go, written by the edge channel).
 */
export const ROUND_REPORT_REASON = "DoTraining";

/** The job phases, as upstream's. */
export const FederatedLearningPhase = z.enum(["Pending", "Running", "Succeeded", "Failed"]);
export type FederatedLearningPhase = z.infer<typeof FederatedLearningPhase>;

/**
 * The pod a worker slot last had, as the controller observed it: what lets it tell, after
 * a relay restart, that a slot's pod vanished unseen (a replacement, not a first create).
 */
export const WorkerPod = z.object({
  slot: z.string(),
  specHash: z.string(),
  pod: z.string(),
  uid: z.string().optional(),
});
export type WorkerPod = z.infer<typeof WorkerPod>;

/** FederatedLearningJob status (upstream's, plus observedGeneration, the succeeded workers and each slot's last pod). */
export const FederatedLearningStatus = z.object({
  conditions: z.array(Condition).optional(),
  startTime: z.string().optional(),
  completionTime: z.string().optional(),
  active: z.int32().optional(),
  succeeded: z.int32().optional(),
  failed: z.int32().optional(),
  phase: FederatedLearningPhase.optional(),
  observedGeneration: z.number().int().optional(),
  succeededWorkers: z
    .array(z.string())
    .optional()
    .describe("edgeloop: workers (`<slot>@<spec-hash>`) that completed, never to be re-run"),
  workerPods: z
    .array(WorkerPod)
    .optional()
    .describe("edgeloop: the last pod observed in each worker slot of the current spec, so that a pod gone unseen is replaced as a recreation"),
});
export type FederatedLearningStatus = z.infer<typeof FederatedLearningStatus>;

/** The FederatedLearningJob custom resource (`fl`). */
export const federatedLearningResource: CustomResource<typeof FederatedLearningSpec, typeof FederatedLearningStatus> = {
  group: SEDNA_GROUP,
  version: SEDNA_VERSION,
  kind: "FederatedLearningJob",
  plural: "federatedlearningjobs",
  singular: "federatedlearningjob",
  shortNames: ["fl"],
  scope: "Namespaced",
  spec: FederatedLearningSpec,
  status: FederatedLearningStatus,
  printerColumns: [
    { name: "Phase", type: "string", jsonPath: ".status.phase" },
    { name: "Active", type: "integer", jsonPath: ".status.active" },
    { name: "Succeeded", type: "integer", jsonPath: ".status.succeeded" },
    { name: "Failed", type: "integer", jsonPath: ".status.failed" },
  ],
};
