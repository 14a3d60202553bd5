/**
 * scheduler-plugins' PodGroup custom resource (`scheduling.x-k8s.io/v1alpha1`, as
 * `apis/scheduling/v1alpha1/types.go` of sigs.k8s.io/scheduler-plugins v0.34.7 defines it
 * and `manifests/coscheduling/crd.yaml` serves it): one zod schema makes its type and its
 * CRD (`npm run crds`), so a cluster without scheduler-plugins can take the PodGroups
 * Kubeflow's training operator and others create. The gang scheduler reads `minMember` and
 * `scheduleTimeoutSeconds` and writes the status back as its podgroup controller does
 * (ADR 0026).
 */
import { z } from "zod";
import { KubeObject } from "../../../protocol/index.ts";
import type { CustomResource } from "../../kit/crd/resource.ts";
import { POD_GROUP_LABEL } from "./core/group.ts";

/** A resource quantity (`1`, `500m`, `2Gi`), as a ResourceList value. */
const Quantity = z.union([z.int(), z.string().max(64)]);

/** PodGroup spec, upstream's. */
export const PodGroupSpec = z.object({
  minMember: z.int32().min(1).optional().describe(`How many pods of the group (labelled ${POD_GROUP_LABEL}) must be placed together; edgeloop: the group's size`),
  minResources: z.record(z.string(), Quantity).optional().describe("The least resources the group needs to start (edgeloop reads its pods' requests instead)"),
  scheduleTimeoutSeconds: z.int32().optional().describe("How long the group's pods wait for each other; edgeloop: the group's arrival timeout (a GangIncomplete Warning)"),
});
export type PodGroupSpec = z.infer<typeof PodGroupSpec>;

/** The phases upstream's podgroup controller writes. */
export const PodGroupPhase = z.enum(["Pending", "Scheduling", "Running", "Unknown", "Finished", "Failed"]);

/** PodGroup status, upstream's. */
export const PodGroupStatus = z.object({
  phase: z.string().optional().describe("Pending, Scheduling, Running, Unknown, Finished or Failed"),
  occupiedBy: z.string().optional().describe("namespace/owner of the group's first pod"),
  running: z.int32().optional().describe("Pods of the group Running"),
  succeeded: z.int32().optional().describe("Pods of the group Succeeded"),
  failed: z.int32().optional().describe("Pods of the group Failed"),
  scheduleStartTime: z.iso.datetime().optional().describe("When the group's scheduling started (not written by edgeloop, nor by upstream's controller)"),
});
export type PodGroupStatus = z.infer<typeof PodGroupStatus>;

/** A whole PodGroup object, as the API server serves it. */
export const PodGroup = KubeObject.extend({ spec: PodGroupSpec, status: PodGroupStatus.optional() });
export type PodGroup = z.infer<typeof PodGroup>;

/** The PodGroup custom resource (`pg`), named and printed as upstream's CRD. */
export const podGroupResource: CustomResource<typeof PodGroupSpec, typeof PodGroupStatus> = {
  group: "scheduling.x-k8s.io",
  version: "v1alpha1",
  kind: "PodGroup",
  plural: "podgroups",
  singular: "podgroup",
  shortNames: ["pg", "pgs"],
  scope: "Namespaced",
  spec: PodGroupSpec,
  status: PodGroupStatus,
  printerColumns: [
    { name: "Phase", type: "string", jsonPath: ".status.phase" },
    { name: "MinMember", type: "integer", jsonPath: ".spec.minMember" },
    { name: "Running", type: "integer", jsonPath: ".status.running" },
    { name: "Succeeded", type: "integer", jsonPath: ".status.succeeded" },
    { name: "Failed", type: "integer", jsonPath: ".status.failed" },
  ],
};
