import { z } from "zod";
import type { CustomResource } from "../../kit/crd/resource.ts";
import { SEDNA_GROUP, SEDNA_VERSION } from "./group.ts";

/** Dataset spec: where the data lives, on which node. */
export const DatasetSpec = z
  .object({
    url: z.string(),
    format: z.string(),
    nodeName: z.string(),
    credentialName: z.string().optional(),
  })
  .describe("DatasetSpec is a description of a dataset");
export type DatasetSpec = z.infer<typeof DatasetSpec>;

/** Dataset status, written by Sedna's local controller. */
export const DatasetStatus = z.object({
  numberOfSamples: z.number().int(),
  updateTime: z.iso.datetime({ offset: true }).optional(),
});
export type DatasetStatus = z.infer<typeof DatasetStatus>;

/** The Dataset custom resource (`sedna.io/v1alpha1`). */
export const datasetResource: CustomResource<typeof DatasetSpec, typeof DatasetStatus> = {
  group: SEDNA_GROUP,
  version: SEDNA_VERSION,
  kind: "Dataset",
  plural: "datasets",
  singular: "dataset",
  scope: "Namespaced",
  spec: DatasetSpec,
  status: DatasetStatus,
  printerColumns: [
    { name: "URL", type: "string", jsonPath: ".spec.url" },
    { name: "Node", type: "string", jsonPath: ".spec.nodeName" },
  ],
};
