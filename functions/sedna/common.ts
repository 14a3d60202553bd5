import { z } from "zod";

/** The API group and version of every Sedna kind. */
export const SEDNA_GROUP = "sedna.io";
export const SEDNA_VERSION = "v1alpha1";
export const SEDNA_API_VERSION = `${SEDNA_GROUP}/${SEDNA_VERSION}`;

/** `{name}`: a reference to a Model or Dataset in the same namespace. */
export const NameRef = z.object({ name: z.string().describe("Name of the object in the same namespace") });
export type NameRef = z.infer<typeof NameRef>;

/** `{key, value}` pairs, as upstream's ParaSpec and Metric. */
export const KeyValue = z.object({ key: z.string(), value: z.string() });
export type KeyValue = z.infer<typeof KeyValue>;

/** A container: the fields edgeloop reads are checked, everything else passes through. */
export const Container = z
  .object({
    name: z.string().min(1),
    image: z.string().optional(),
    env: z.array(z.object({ name: z.string().min(1) }).loose()).optional(),
  })
  .loose();
export type Container = z.infer<typeof Container>;

/** A core/v1 PodSpec, free-form beyond the containers and volumes edgeloop touches. */
export const PodSpec = z
  .object({
    containers: z.array(Container).min(1),
    initContainers: z.array(Container).optional(),
    volumes: z.array(z.object({ name: z.string().min(1) }).loose()).optional(),
    restartPolicy: z.enum(["Always", "OnFailure", "Never"]).optional(),
  })
  .loose();
export type PodSpec = z.infer<typeof PodSpec>;

/** A core/v1 PodTemplateSpec: the user's pod, kept as given. */
export const PodTemplate = z
  .object({
    metadata: z
      .object({
        labels: z.record(z.string(), z.string()).optional(),
        annotations: z.record(z.string(), z.string()).optional(),
      })
      .loose()
      .optional(),
    spec: PodSpec,
  })
  .describe("A core/v1 PodTemplateSpec");
export type PodTemplate = z.infer<typeof PodTemplate>;

/** A status condition; Sedna kinds keep exactly one per type. */
export const Condition = z.object({
  type: z.string().min(1),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastHeartbeatTime: z.string().optional(),
  lastProbeTime: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});
export type Condition = z.infer<typeof Condition>;
