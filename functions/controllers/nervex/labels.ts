/** The labels upstream's operator puts on every NerveX child, and the replica types they name. */
import { boundedLabelValue } from "../../kit/names.ts";
import { NERVEX_GROUP } from "./group.ts";

/** Label keys, as upstream's (unprefixed). */
export const GROUP_NAME_LABEL = "group-name";
export const JOB_NAME_LABEL = "nervexjob-name";
export const CONTROLLER_NAME_LABEL = "controller-name";
export const REPLICA_TYPE_LABEL = "replica-type";
export const POD_NAME_LABEL = "pod-name";

/** The values of `group-name` and `controller-name`. */
export const GROUP_NAME_VALUE = NERVEX_GROUP;
export const CONTROLLER_NAME_VALUE = "nervex-operator";

/** A replica's role; ddp-learners are the per-GPU-group learners behind an aggregator. */
export type ReplicaType = "coordinator" | "collector" | "learner" | "aggregator" | "ddp-learner";

/** Every replica type, in upstream's order. */
export const REPLICA_TYPES: readonly ReplicaType[] = ["coordinator", "collector", "learner", "aggregator", "ddp-learner"];

/** The labels that select the children of one job (a selector for all its pods). */
export function jobLabels(jobName: string): Record<string, string> {
  return {
    [GROUP_NAME_LABEL]: GROUP_NAME_VALUE,
    [JOB_NAME_LABEL]: boundedLabelValue(jobName),
    [CONTROLLER_NAME_LABEL]: CONTROLLER_NAME_VALUE,
  };
}

/**
 * The labels of one replica's pod (and its Service's selector). Values longer than a label
 * may be (a 253-character job name) are cut with a hash (`boundedLabelValue`); selectors
 * built with this same function still match.
 */
export function replicaLabels(jobName: string, type: ReplicaType, podName: string): Record<string, string> {
  return { ...jobLabels(jobName), [REPLICA_TYPE_LABEL]: type, [POD_NAME_LABEL]: boundedLabelValue(podName) };
}
