/** AggregatorConfig: the pod template the replicas API builds aggregators from. */
import { z } from "zod";
import type { CustomResource } from "../../kit/crd/resource.ts";
import { PodTemplate } from "../../kit/pod.ts";
import { KubeObject } from "../../../protocol/index.ts";
import { NERVEX_GROUP, NERVEX_VERSION } from "./group.ts";

/** AggregatorConfig spec: the aggregator's pod. */
export const AggregatorConfigSpec = z.object({ aggregator: z.object({ template: PodTemplate }) });
export type AggregatorConfigSpec = z.infer<typeof AggregatorConfigSpec>;

/** A whole AggregatorConfig object. */
export const AggregatorConfig = KubeObject.extend({ spec: AggregatorConfigSpec });
export type AggregatorConfig = z.infer<typeof AggregatorConfig>;

/** The AggregatorConfig custom resource (`agconfig`); it has no status. */
export const aggregatorConfigResource: CustomResource<typeof AggregatorConfigSpec> = {
  group: NERVEX_GROUP,
  version: NERVEX_VERSION,
  kind: "AggregatorConfig",
  plural: "aggregatorconfigs",
  singular: "aggregatorconfig",
  shortNames: ["agconfig"],
  scope: "Namespaced",
  spec: AggregatorConfigSpec,
};

/** The AggregatorConfig the server reads (upstream's flag default). */
export const DEFAULT_AGGREGATOR_CONFIG = { namespace: "nervex-system", name: "aggregator-config" } as const;
