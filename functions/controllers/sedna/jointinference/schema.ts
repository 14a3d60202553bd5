import { z } from "zod";
import type { CustomResource } from "../../../kit/crd/resource.ts";
import { Condition } from "../../../kit/conditions.ts";
import { PodTemplate } from "../../../kit/pod.ts";
import { KeyValue, NameRef, SEDNA_GROUP, SEDNA_VERSION } from "../group.ts";

/** Autoscaling of one worker (an autoscaling/v2 HPA `hpa-<deployment>`). */
export const Hpa = z.object({
  minReplicas: z.int32().min(1).optional(),
  maxReplicas: z.int32().min(1),
  metrics: z.array(z.object({}).loose()).optional().describe("autoscaling/v2 MetricSpec list"),
  behavior: z.object({}).loose().optional().describe("autoscaling/v2 HorizontalPodAutoscalerBehavior"),
});
export type Hpa = z.infer<typeof Hpa>;

/** The hard example mining algorithm the edge worker runs. */
export const HardExampleMining = z.object({
  name: z.string(),
  parameters: z.array(KeyValue).optional(),
});

/** The edge (little model) worker. */
export const EdgeWorker = z.object({
  model: NameRef,
  hardExampleMining: HardExampleMining,
  template: PodTemplate,
  hpa: Hpa.optional(),
});
export type EdgeWorker = z.infer<typeof EdgeWorker>;

/** The cloud (big model) worker. */
export const CloudWorker = z.object({
  model: NameRef,
  template: PodTemplate,
  hpa: Hpa.optional(),
});
export type CloudWorker = z.infer<typeof CloudWorker>;

/** JointInferenceService spec, as upstream Sedna's. */
export const JointInferenceSpec = z.object({ edgeWorker: EdgeWorker, cloudWorker: CloudWorker });
export type JointInferenceSpec = z.infer<typeof JointInferenceSpec>;

/** JI condition types: exactly one condition of each, at most. */
export const JI_CONDITION_TYPES = ["Pending", "Running", "Failed"] as const;

/** JointInferenceService status (upstream's, plus observedGeneration). */
export const JointInferenceStatus = z.object({
  conditions: z.array(Condition).optional(),
  startTime: z.string().optional(),
  active: z.int32().optional(),
  failed: z.int32().optional(),
  metrics: z.array(KeyValue).optional(),
  observedGeneration: z.number().int().optional(),
});
export type JointInferenceStatus = z.infer<typeof JointInferenceStatus>;

/** The JointInferenceService custom resource (`ji`). */
export const jointInferenceResource: CustomResource<typeof JointInferenceSpec, typeof JointInferenceStatus> = {
  group: SEDNA_GROUP,
  version: SEDNA_VERSION,
  kind: "JointInferenceService",
  plural: "jointinferenceservices",
  singular: "jointinferenceservice",
  shortNames: ["ji"],
  scope: "Namespaced",
  spec: JointInferenceSpec,
  status: JointInferenceStatus,
  printerColumns: [
    { name: "Status", type: "string", jsonPath: '.status.conditions[?(@.status=="True")].type' },
    { name: "Active", type: "integer", jsonPath: ".status.active" },
    { name: "Failed", type: "integer", jsonPath: ".status.failed" },
  ],
};
