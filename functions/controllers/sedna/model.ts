import { z } from "zod";
import type { CustomResource } from "../../kit/crd/resource.ts";
import { KeyValue, SEDNA_GROUP, SEDNA_VERSION } from "./group.ts";

/** Model spec: where the model lives and in which format. */
export const ModelSpec = z
  .object({
    url: z.string(),
    format: z.string(),
    credentialName: z.string().optional(),
    device_soc_versions: z.array(z.string()).optional(),
  })
  .describe("ModelSpec is a description of a model");
export type ModelSpec = z.infer<typeof ModelSpec>;

/** Model status, written by Sedna's lifelong-learning components. */
export const ModelStatus = z.object({
  updateTime: z.iso.datetime({ offset: true }).optional(),
  metrics: z.array(KeyValue).optional(),
});
export type ModelStatus = z.infer<typeof ModelStatus>;

/** The Model custom resource (`sedna.io/v1alpha1`). */
export const modelResource: CustomResource<typeof ModelSpec, typeof ModelStatus> = {
  group: SEDNA_GROUP,
  version: SEDNA_VERSION,
  kind: "Model",
  plural: "models",
  singular: "model",
  scope: "Namespaced",
  spec: ModelSpec,
  status: ModelStatus,
  printerColumns: [
    { name: "URL", type: "string", jsonPath: ".spec.url" },
    { name: "Format", type: "string", jsonPath: ".spec.format" },
  ],
};
