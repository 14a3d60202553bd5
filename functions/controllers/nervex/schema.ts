/** The NerveXJob custom resource: its spec, its status and the object as a whole. */
import { z } from "zod";
import type { CustomResource } from "../../kit/crd/resource.ts";
import { PodTemplate } from "../../kit/pod.ts";
import { KubeObject } from "../../../protocol/index.ts";
import { NERVEX_GROUP, NERVEX_VERSION } from "./group.ts";

/** A core/v1 Volume: its name is checked, the source passes through as given. */
export const Volume = z.object({ name: z.string().min(1) }).loose().describe("A core/v1 Volume");
export type Volume = z.infer<typeof Volume>;

/** One replica kind's pod template. */
export const ReplicaSpec = z.object({ template: PodTemplate });
export type ReplicaSpec = z.infer<typeof ReplicaSpec>;

/** Which pods a finished job deletes: every one, those still running (the default), or none. */
export const CleanPodPolicy = z.enum(["Running", "ALL", "None"]);
export type CleanPodPolicy = z.infer<typeof CleanPodPolicy>;

/** NerveXJob spec, as upstream's (collector and learner are absent in a serial job). */
export const NerveXJobSpec = z.object({
  group: z.string().optional().describe("Group name of the job"),
  priorityClassName: z.string().optional().describe("PriorityClass of every pod of the job (empty: none)"),
  // A string in the CRD, as upstream's: the validating webhook is what refuses another
  // value (its message names the allowed ones), and a value stored before the webhook
  // existed still parses (the reconcile reads it as the default).
  cleanPodPolicy: z.string().optional().describe("Pods deleted when the job finishes: Running (default), ALL or None; checked by the webhook"),
  volumes: z.array(Volume).optional().describe("Volumes added to every pod of the job"),
  coordinator: ReplicaSpec,
  collector: ReplicaSpec.optional(),
  learner: ReplicaSpec.optional(),
});
export type NerveXJobSpec = z.infer<typeof NerveXJobSpec>;

/** The job phases, as upstream's. */
export const NerveXJobPhase = z.enum(["Created", "Running", "Succeeded", "Failed", "Unknown"]);
export type NerveXJobPhase = z.infer<typeof NerveXJobPhase>;

/** A job condition, upstream's shape (lastUpdateTime where core kinds have a heartbeat); one per type. */
export const NerveXJobCondition = z.object({
  type: NerveXJobPhase,
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastUpdateTime: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});
export type NerveXJobCondition = z.infer<typeof NerveXJobCondition>;

/** The replica types the status counts, keyed as upstream's `replicaStatus`. */
export const ReplicaStatusKey = z.enum(["Coordinator", "Collector", "Learner", "Aggregator"]);
export type ReplicaStatusKey = z.infer<typeof ReplicaStatusKey>;

/** Pods of one replica type: pending or running, succeeded, failed. */
export const ReplicaCounts = z.object({
  active: z.int32().optional(),
  succeeded: z.int32().optional(),
  failed: z.int32().optional(),
});
export type ReplicaCounts = z.infer<typeof ReplicaCounts>;

/** NerveXJob status (upstream's, plus the coordinator pod last observed). */
export const NerveXJobStatus = z.object({
  phase: NerveXJobPhase.optional(),
  conditions: z.array(NerveXJobCondition).optional(),
  replicaStatus: z
    .object({ Coordinator: ReplicaCounts.optional(), Collector: ReplicaCounts.optional(), Learner: ReplicaCounts.optional(), Aggregator: ReplicaCounts.optional() })
    .optional(),
  coordinatorUid: z
    .string()
    .optional()
    .describe("edgeloop: the uid of the coordinator pod last observed, so that one gone unseen is recreated as a replacement"),
});
export type NerveXJobStatus = z.infer<typeof NerveXJobStatus>;

/** A whole NerveXJob object, as the API server serves it. */
export const NerveXJob = KubeObject.extend({
  spec: NerveXJobSpec,
  status: NerveXJobStatus.optional(),
});
export type NerveXJob = z.infer<typeof NerveXJob>;

/** The NerveXJob custom resource (`nvxjob`). */
export const nerveXJobResource: CustomResource<typeof NerveXJobSpec, typeof NerveXJobStatus> = {
  group: NERVEX_GROUP,
  version: NERVEX_VERSION,
  kind: "NerveXJob",
  plural: "nervexjobs",
  singular: "nervexjob",
  shortNames: ["nvxjob"],
  scope: "Namespaced",
  spec: NerveXJobSpec,
  status: NerveXJobStatus,
  // crdOf appends the Age column (`.metadata.creationTimestamp`) itself.
  printerColumns: [{ name: "Phase", type: "string", jsonPath: ".status.phase" }],
};
