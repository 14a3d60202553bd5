/**
 * The pod schemas controllers embed in their custom resources: a container and a pod
 * spec checked only where edgeloop reads them, a PodTemplateSpec kept as the user gave it.
 */
import { z } from "zod";

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
